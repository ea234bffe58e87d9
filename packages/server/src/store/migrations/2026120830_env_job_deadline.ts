import type { EngineMigration } from '../migrate.ts';

/**
 * Environment jobs get a stored deadline: a job whose node never takes it, or stops reporting on it, ends failed
 * once the deadline passes, whichever master sweeps first. Jobs under way when this runs are stamped by the first
 * sweep. The index serves the sweep, which reads only unfinished jobs.
 */
export const m2026120830_env_job_deadline: EngineMigration = {
  async up(db, t) {
    await db.schema.alterTable('env_jobs').addColumn('deadline_ts', t.ts).execute();
    await db.schema
      .createIndex('env_jobs_status_deadline_idx')
      .on('env_jobs')
      .columns(['status', 'deadline_ts'])
      .execute();
  },
};
