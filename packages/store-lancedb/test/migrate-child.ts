// One of two processes opening the same database written before the validity columns existed (see
// formation.test.ts): opens the knowledge store (which migrates the tables under the write lock), reads one document
// back and prints its validity fields as JSON on stdout.
import { createLanceStore } from '../src/index.js';

const [uri, docId] = process.argv.slice(2) as [string, string];
const store = createLanceStore({ uri });
try {
  const [rec] = await store.getDocument('acme', docId);
  const { validFrom, validTo, invalidatedAt, supersedes, supersededBy, userId, claim } = rec ?? {};
  console.log(
    JSON.stringify({
      found: rec !== undefined,
      validFrom,
      validTo,
      invalidatedAt,
      supersedes,
      supersededBy,
      userId,
      claim,
    }),
  );
} finally {
  await store.close();
}
