/** Projects: TanStack Query hooks over the request helper (list, tags, add or edit, delete, assign spiders). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/request.ts';
import type { Project, ProjectForm } from './types.ts';

export const projectKeys = {
  all: ['projects'] as const,
  list: (q: { keyword?: string; tag?: string }) => ['projects', 'list', q] as const,
  tags: ['projects', 'tags'] as const,
};

export function useProjects(q: { keyword?: string; tag?: string } = {}) {
  return useQuery({
    queryKey: projectKeys.list(q),
    queryFn: async () =>
      (await api.get<Project[]>('/projects', { keyword: q.keyword || undefined, tag: q.tag || undefined })).data ?? [],
  });
}

export function useProjectTags() {
  return useQuery({
    queryKey: projectKeys.tags,
    queryFn: async () => {
      const data = (await api.get<Array<{ tag: string } | string>>('/projects/tags')).data ?? [];
      return data.map((t) => (typeof t === 'string' ? t : t.tag)).filter(Boolean);
    },
  });
}

function useInvalidateProjects() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: projectKeys.all });
    void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
  };
}

export function useSaveProject() {
  const invalidate = useInvalidateProjects();
  return useMutation({
    mutationFn: async ({ id, form }: { id?: string; form: ProjectForm }) =>
      (id ? await api.post<Project>(`/projects/${id}`, form) : await api.put<Project>('/projects', form)).data,
    onSuccess: invalidate,
  });
}

export function useDeleteProject() {
  const invalidate = useInvalidateProjects();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/projects/${id}`)).data,
    onSuccess: invalidate,
  });
}

export function useSetSpiderProjects() {
  const invalidate = useInvalidateProjects();
  return useMutation({
    mutationFn: async (body: { project_id: string; spider_ids: string[] }) =>
      (await api.post('/spiders-set-projects', body)).data,
    onSuccess: invalidate,
  });
}
