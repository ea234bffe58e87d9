/** Tables of node environments: install jobs, what each node reports, admin languages, "all nodes" marks. */
export interface EnvironmentTables {
  /** One install, uninstall or upgrade on one node; a node runs its jobs one at a time, oldest first. */
  env_jobs: {
    id: string;
    node_id: string;
    target: string;
    action: string;
    name: string;
    version: string;
    environment: string;
    status: string;
    log: string;
    error: string;
    user_id: string;
    username: string;
    create_ts: number;
    start_ts: number | null;
    finish_ts: number | null;
    /** When the job expires unless its node takes it or reports on it first (null: stamped by the next sweep). */
    deadline_ts: number | null;
  };
  /** The last report of a node: languages found (JSON), packages of its environments (JSON). */
  env_inventory: {
    node_id: string;
    package_manager: string;
    languages: string;
    pip: string;
    npm: string;
    update_ts: number;
  };
  /** Languages an administrator added to the catalogue (JSON of the EnvLanguageBody). */
  env_languages: {
    key: string;
    body: string;
    create_ts: number;
  };
  /** Languages and packages that belong on every node, a node that joins later included. */
  env_everywhere: {
    target: string;
    name: string;
    version: string;
    create_ts: number;
  };
}
