/**
 * Scrapy projects, Git spiders and configurable spiders: TanStack Query hooks over the request helper. All calls
 * are `silent`: the panels show the server's message themselves (per section for Scrapy), so no generic toast
 * doubles it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  SPIDERFILE_NAME,
  parseSpiderfile,
  validateSpiderfile,
  type ConfigSpiderTemplate,
  type ExtractFieldsResult,
  type GitInfo,
  type GitSyncResult,
  type PreviewResult,
  type ScrapyItem,
  type ScrapyPipeline,
  type ScrapySetting,
  type ScrapySpiderCreated,
  type Spiderfile,
} from '@crawldeck/shared';
import { api, ApiRequestError } from '../../api/request.ts';
import { spiderKeys } from './api.ts';
import type { Spider } from './types.ts';

/** Cloning a repository or running the Scrapy helper may take longer than the 15 s default. */
export const LONG_TIMEOUT_MS = 120_000;

export const toolKeys = {
  scrapy: (id: string, section: ScrapySection) => ['spiders', 'scrapy', id, section] as const,
  git: (id: string) => ['spiders', 'git', id] as const,
  // under spiderKeys.files(id): a refresh of the Files tab refreshes it too
  spiderfile: (id: string) => ['spiders', 'files', id, 'spiderfile'] as const,
  templates: ['config_spiders_templates'] as const,
};

/** Text of a failed call for the panels: the server's `error` (Python/git reason) or message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiRequestError) return err.errorText || err.message;
  return err instanceof Error ? err.message : String(err);
}

// ---------- Scrapy ----------

export type ScrapySection = 'spiders' | 'settings' | 'items' | 'pipelines';
type SectionData = { spiders: string[]; settings: ScrapySetting[]; items: ScrapyItem[]; pipelines: ScrapyPipeline[] };

export function useScrapySection<S extends ScrapySection>(id: string, section: S, enabled = true) {
  return useQuery<SectionData[S], Error>({
    queryKey: toolKeys.scrapy(id, section),
    enabled,
    retry: false,
    staleTime: 30_000,
    queryFn: async () =>
      (
        await api.get<SectionData[S]>(`/spiders/${id}/scrapy/${section}`, undefined, {
          silent: true,
          timeout: LONG_TIMEOUT_MS,
        })
      ).data ?? ([] as unknown as SectionData[S]),
  });
}

export async function saveScrapySection<S extends Exclude<ScrapySection, 'spiders'>>(
  id: string,
  section: S,
  body: unknown,
): Promise<SectionData[S]> {
  return (
    await api.post<SectionData[S]>(`/spiders/${id}/scrapy/${section}`, body, { silent: true, timeout: LONG_TIMEOUT_MS })
  ).data;
}

export async function addScrapySpider(id: string, form: { name: string; domain: string; template?: string }) {
  return (
    await api.put<ScrapySpiderCreated>(`/spiders/${id}/scrapy/spiders`, form, {
      silent: true,
      timeout: LONG_TIMEOUT_MS,
    })
  ).data;
}

export async function scrapySpiderFilepath(id: string, spiderName: string): Promise<string> {
  return (
    await api.get<string>(
      `/spiders/${id}/scrapy/spider/filepath`,
      { spider_name: spiderName },
      { silent: true, timeout: LONG_TIMEOUT_MS },
    )
  ).data;
}

// ---------- Git ----------

export function useGitInfo(spider: Spider) {
  return useQuery<GitInfo, Error>({
    queryKey: toolKeys.git(spider._id),
    enabled: !!spider.git_url,
    retry: false,
    queryFn: async () => (await api.get<GitInfo>(`/spiders/${spider._id}/git`, undefined, { silent: true })).data,
  });
}

export async function gitAction(id: string, action: 'sync' | 'reset', branch?: string): Promise<GitSyncResult> {
  return (
    await api.post<GitSyncResult>(`/spiders/${id}/git/${action}`, branch ? { branch } : {}, {
      silent: true,
      timeout: LONG_TIMEOUT_MS,
    })
  ).data;
}

// ---------- configurable spiders ----------

export interface SpiderfileState {
  spiderfile: Spiderfile | null;
  content: string;
  /** Problems of the stored text (it is shown in the Config tab to be fixed). */
  problems: string[];
}

/** The Spiderfile both the Rules and Config tabs edit: file text parsed here; falls back to the config column. */
export function useSpiderfile(spider: Spider) {
  const id = spider._id;
  return useQuery<SpiderfileState, Error>({
    queryKey: toolKeys.spiderfile(id),
    enabled: spider.type === 'configurable',
    staleTime: Infinity,
    queryFn: async () => {
      let content: string | null = null;
      try {
        const res = await api.get<string | { content: string }>(
          `/spiders/${id}/file`,
          { path: SPIDERFILE_NAME },
          { silent: true },
        );
        content = typeof res.data === 'string' ? res.data : (res.data?.content ?? '');
      } catch (err) {
        if (!(err instanceof ApiRequestError && err.status === 404)) throw err;
      }
      if (content !== null) {
        const parsed = parseSpiderfile(content);
        return parsed.ok
          ? { spiderfile: parsed.spiderfile, content, problems: [] }
          : {
              spiderfile: null,
              content,
              problems: parsed.problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)),
            };
      }
      const fromConfig = validateSpiderfile({ name: spider.name, ...spider.config });
      return { spiderfile: fromConfig.ok ? fromConfig.spiderfile : null, content: '', problems: [] };
    },
  });
}

/** After a save: both tabs see the saved Spiderfile; the Files tab and the spider (config column) reload. */
export function useSpiderfileSaved(id: string) {
  const qc = useQueryClient();
  return (saved: { spiderfile: Spiderfile; content: string }) => {
    qc.setQueryData<SpiderfileState>(toolKeys.spiderfile(id), {
      spiderfile: saved.spiderfile,
      content: saved.content,
      problems: [],
    });
    void qc.invalidateQueries({ queryKey: spiderKeys.file(id, SPIDERFILE_NAME) });
    void qc.invalidateQueries({ queryKey: spiderKeys.dir(id, '') });
    void qc.invalidateQueries({ queryKey: spiderKeys.detail(id), exact: true });
  };
}

export async function saveSpiderfileForm(id: string, sf: Spiderfile) {
  return (
    await api.post<{ spiderfile: Spiderfile; content: string }>(`/config_spiders/${id}/config`, sf, { silent: true })
  ).data;
}

export async function saveSpiderfileText(id: string, content: string) {
  return (
    await api.post<{ spiderfile: Spiderfile; content: string }>(
      `/config_spiders/${id}/spiderfile`,
      { content },
      { silent: true },
    )
  ).data;
}

export type { PreviewResult } from '@crawldeck/shared';

export async function previewCrawl(id: string, spiderfile: Spiderfile, items = 10) {
  return (
    await api.post<PreviewResult>(
      `/spiders/${id}/preview_crawl`,
      { items, spiderfile },
      { silent: true, timeout: 60_000 },
    )
  ).data;
}

export async function extractFields(id: string, url?: string) {
  return (
    await api.post<ExtractFieldsResult>(`/spiders/${id}/extract_fields`, url ? { url } : {}, {
      silent: true,
      timeout: 60_000,
    })
  ).data;
}

export async function convertToCustomized(id: string) {
  return (
    await api.post<Spider & { files: string[] }>(`/config_spiders/${id}/convert`, undefined, {
      silent: true,
      timeout: LONG_TIMEOUT_MS,
    })
  ).data;
}

export function useConfigTemplates(enabled = true) {
  return useQuery<ConfigSpiderTemplate[]>({
    queryKey: toolKeys.templates,
    enabled,
    staleTime: Infinity,
    queryFn: async () => (await api.get<ConfigSpiderTemplate[]>('/config_spiders_templates')).data ?? [],
  });
}

export async function createConfigSpider(body: {
  name: string;
  display_name?: string;
  col?: string;
  template?: string;
  start_url?: string;
  project_id?: string | null;
  is_public?: boolean;
}) {
  return (await api.put<Spider>('/config_spiders', body, { silent: true })).data;
}

// ---------- import from a Git URL (POST /spiders/import/github) ----------

export interface ImportAnswer extends Spider {
  git: GitSyncResult;
  /** The spiders made: one per Scrapy project when the repository holds several. */
  projects: { _id: string; name: string; src: string }[];
}

/** One endpoint for every host: `type` (github, gitlab, gitee, git) only labels the source. */
export function useImportRepo() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: { url: string; type: string; branch?: string; name?: string }) =>
      (await api.post<ImportAnswer>('/spiders/import/github', body, { silent: true, timeout: LONG_TIMEOUT_MS })).data,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
      void qc.invalidateQueries({ queryKey: ['projects'] });
    },
  });
}

export function useCreateConfigSpider() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createConfigSpider,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
      void qc.invalidateQueries({ queryKey: ['projects'] });
    },
  });
}
