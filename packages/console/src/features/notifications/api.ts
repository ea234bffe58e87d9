/** Notification channels, rules and the alert history (Settings → Notifications): TanStack Query hooks (admin). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AlertInfo,
  ChannelAttemptResult,
  ChannelBody,
  ChannelInfo,
  ChannelUpdateBody,
  RuleBody,
  RuleInfo,
  RuleUpdateBody,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export const notifyKeys = {
  all: ['notifications'] as const,
  channels: ['notifications', 'channels'] as const,
  rules: ['notifications', 'rules'] as const,
  alerts: (page: number, status: string) => ['notifications', 'alerts', page, status] as const,
};

export function useChannels() {
  return useQuery({
    queryKey: notifyKeys.channels,
    queryFn: async () => (await api.get<ChannelInfo[]>('/notifications/channels')).data ?? [],
  });
}

export function useRules() {
  return useQuery({
    queryKey: notifyKeys.rules,
    queryFn: async () => (await api.get<RuleInfo[]>('/notifications/rules')).data ?? [],
  });
}

export function useAlerts(page: number, status: string, pageSize = 20) {
  return useQuery({
    queryKey: notifyKeys.alerts(page, status),
    queryFn: async () => {
      const r = await api.get<AlertInfo[]>('/notifications/alerts', {
        page_num: page,
        page_size: pageSize,
        status: status || undefined,
      });
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    refetchInterval: 3000,
  });
}

export function useSaveChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, form }: { id?: string; form: ChannelBody | ChannelUpdateBody }) =>
      (id
        ? await api.post<ChannelInfo>(`/notifications/channels/${id}`, form)
        : await api.put<ChannelInfo>('/notifications/channels', form)
      ).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: notifyKeys.all }),
  });
}

export function useDeleteChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/notifications/channels/${id}`)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: notifyKeys.all }),
  });
}

export function useTestChannel() {
  return useMutation({
    mutationFn: async (id: string) =>
      (await api.post<ChannelAttemptResult>(`/notifications/channels/${id}/test`)).data as ChannelAttemptResult,
  });
}

export function useSaveRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, form }: { id?: string; form: RuleBody | RuleUpdateBody }) =>
      (id
        ? await api.post<RuleInfo>(`/notifications/rules/${id}`, form)
        : await api.put<RuleInfo>('/notifications/rules', form)
      ).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: notifyKeys.all }),
  });
}

export function useDeleteRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/notifications/rules/${id}`)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: notifyKeys.all }),
  });
}
