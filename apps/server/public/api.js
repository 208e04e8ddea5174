// The inspector's only door to mem: the same HTTP API as every client, with the key from this tab's sessionStorage.
const KEY = 'mem.apiKey';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function getKey() {
  return sessionStorage.getItem(KEY) ?? '';
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

const USER = 'mem.user';

/** The end user the inspector acts for (X-Mem-User): memories formed about them are seen only with it. */
export function getUser() {
  return sessionStorage.getItem(USER) ?? '';
}

export function setUser(user) {
  if (user) sessionStorage.setItem(USER, user);
  else sessionStorage.removeItem(USER);
}

export async function api(method, path, body) {
  const headers = {};
  const key = getKey();
  if (key) headers.authorization = `Bearer ${key}`;
  const user = getUser();
  if (user) headers['x-mem-user'] = user;
  let payload;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const code = data && typeof data === 'object' ? data.code : `HTTP_${res.status}`;
    const message = data && typeof data === 'object' ? data.message : text;
    throw new ApiError(res.status, code, message);
  }
  return data;
}
