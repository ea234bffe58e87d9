// API types of spiders come from @crawldeck/shared; the console-side names used by this feature.
import type { SpiderListQuery as SharedListQuery, SpiderType, UpdateSpiderBody } from '@crawldeck/shared';

export type {
  DedupMethod,
  FileEntry,
  FileTreeNode,
  Spider,
  SpiderEnv,
  SpiderList,
  SpiderType,
  UploadResult,
} from '@crawldeck/shared';

/** Body of PUT /spiders and POST /spiders/{id}. */
export type SpiderForm = UpdateSpiderBody;

/** GET /spiders query as the list screen keeps it (page fields always set). */
export interface SpiderListQuery extends SharedListQuery {
  page_num: number;
  page_size: number;
  type?: SpiderType;
  sort_direction?: 'asc' | 'desc';
}
