/**
 * Table types of the store, as Kysely sees them. Each feature declares its tables in its own interface below
 * and adds it to `DB`, so features do not edit each other's declarations.
 * Conventions: timestamps are epoch ms numbers, booleans 0/1, JSON columns are TEXT.
 */
export interface SessionTables {
  users: {
    id: string;
    username: string;
    password_hash: string;
    role: 'normal' | 'admin';
    email: string;
    settings: string;
    create_ts: number;
    update_ts: number;
  };
  tokens: {
    id: string;
    user_id: string;
    token_hash: string;
    /** `session` from POST /login, `api` from Settings → API tokens. */
    kind: 'session' | 'api';
    name: string;
    create_ts: number;
    expire_ts: number | null;
    last_used_ts: number | null;
  };
  settings: { key: string; value: string };
  actions: { id: string; user_id: string | null; type: string; params: string; create_ts: number };
}

/** Sites, collected URLs and feedback (issue 6, migration 2026112204_sites). */
export interface SitesTables {
  sites: {
    id: string;
    domain: string;
    main_category: string;
    category: string;
    rank: number | null;
    name: string;
    description: string;
    create_ts: number;
    update_ts: number;
  };
  collected_urls: { id: string; url: string; region_code: string; title: string; create_ts: number; update_ts: number };
  feedback: { id: string; user_id: string | null; email: string; chat_account: string; content: string; create_ts: number };
}

export interface DB extends SessionTables, SitesTables {}
