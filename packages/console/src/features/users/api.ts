/** Users administration: TanStack Query hooks (paged list, add, edit, delete). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AddUserBody, UpdateUserBody, UserInfo } from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export const userKeys = {
  all: ['users'] as const,
  page: (page: number, size: number) => ['users', page, size] as const,
};

export function useUsers(page: number, size: number) {
  return useQuery({
    queryKey: userKeys.page(page, size),
    queryFn: async () => {
      const res = await api.get<UserInfo[]>('/users', { page_num: page, page_size: size });
      return { data: res.data ?? [], total: res.total ?? 0 };
    },
    placeholderData: (prev) => prev,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: userKeys.all });
}

export function useAddUser() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: AddUserBody) => (await api.put<UserInfo>('/users-add', body)).data,
    onSuccess: invalidate,
  });
}

export function useUpdateUser() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string; body: UpdateUserBody }) =>
      (await api.post<UserInfo>(`/users/${id}`, body)).data,
    onSuccess: invalidate,
  });
}

export function useDeleteUser() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/users/${id}`)).data,
    onSuccess: invalidate,
  });
}
