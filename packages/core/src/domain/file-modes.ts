/**
 * Who may read what mem writes to disk (docs/safety.md): only the owner. Every adapter that creates files (SQLite
 * databases and their WAL/SHM, the keys file, LanceDB folders, Markdown workspaces and archives) creates files with
 * PRIVATE_FILE_MODE and folders with PRIVATE_DIR_MODE. A mode passed at creation is narrowed by the umask, never
 * widened, so these hold whatever the umask; files and folders that already exist keep the mode they have.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
