/** Table types of the git feature (migration 2026112207_git), added to `DB` in store/schema.ts. */
export interface GitTables {
  git_state: {
    spider_id: string;
    /** Remote URL without credentials, as last synced. */
    remote: string;
    branch: string;
    /** JSON string[] */
    branches: string;
    /** JSON GitCommit or null */
    commit_info: string | null;
    /** Hash of the commit whose files are in the store (the merge base for the next sync). */
    base_commit: string;
    sync_ts: number | null;
    attempt_ts: number | null;
    error: string;
  };
}
