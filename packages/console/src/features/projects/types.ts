// API types of projects come from @crawldeck/shared.
export type { Project, ProjectTag } from '@crawldeck/shared';
export type { ProjectBody as ProjectForm } from '@crawldeck/shared';
