import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Every turn of the LoCoMo data set (5,882), as "speaker: text [shares an image: caption]": the false-positive
 * corpus of the secret scan. The project's shared data sits next to the repository (../shared); a checkout elsewhere
 * (CI clones into a temporary folder) finds it through MEM_LOCOMO or the workplace's shared folder.
 */
export function locomoTurns(): string[] {
  const candidates = [
    process.env.MEM_LOCOMO,
    fileURLToPath(new URL('../../../../shared/data/locomo10.json', import.meta.url)),
    '/work/shared/data/locomo10.json',
  ].filter((c): c is string => !!c);
  const path = candidates.find((c) => existsSync(c));
  if (!path) {
    throw new Error(
      `The LoCoMo data set is missing (looked at ${candidates.join(', ')}): it is the project's shared data (shared/data/locomo10.json, see shared/data/README.md). Set MEM_LOCOMO to its path.`,
    );
  }
  const data = JSON.parse(readFileSync(path, 'utf8')) as { conversation: Record<string, unknown> }[];
  const turns: string[] = [];
  for (const sample of data) {
    for (const [key, value] of Object.entries(sample.conversation)) {
      if (!/^session_\d+$/.test(key)) continue;
      for (const t of value as { speaker: string; text: string; blip_caption?: string }[]) {
        turns.push(`${t.speaker}: ${t.text}${t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : ''}`);
      }
    }
  }
  return turns;
}
