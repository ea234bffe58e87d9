/** Notification webhooks (Settings → Notifications): TanStack Query hooks (admin-only calls). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  WebhookAttemptResult,
  WebhookBody,
  WebhookDeliveryInfo,
  WebhookInfo,
  WebhookUpdateBody,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export const webhookKeys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  deliveries: (id: string, page: number) => ['webhooks', 'deliveries', id, page] as const,
};

export function useWebhooks() {
  return useQuery({
    queryKey: webhookKeys.list,
    queryFn: async () => (await api.get<WebhookInfo[]>('/webhooks')).data ?? [],
  });
}

export function useDeliveries(id: string | null, page: number, pageSize = 20) {
  return useQuery({
    queryKey: webhookKeys.deliveries(id ?? '', page),
    enabled: !!id,
    queryFn: async () => {
      const r = await api.get<WebhookDeliveryInfo[]>(`/webhooks/${id}/deliveries`, {
        page_num: page,
        page_size: pageSize,
      });
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    refetchInterval: 3000,
  });
}

export function useSaveWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, form }: { id?: string; form: WebhookBody | WebhookUpdateBody }) =>
      (id ? await api.post<WebhookInfo>(`/webhooks/${id}`, form) : await api.put<WebhookInfo>('/webhooks', form)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export function useDeleteWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/webhooks/${id}`)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export function useTestWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.post<WebhookAttemptResult>(`/webhooks/${id}/test`)).data,
    onSettled: () => void qc.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}
