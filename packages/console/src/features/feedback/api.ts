import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Feedback, FeedbackBody } from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export function useFeedbackList(enabled: boolean, page: number, size: number) {
  return useQuery({
    queryKey: ['feedback', page, size],
    enabled,
    queryFn: async () => {
      const res = await api.get<Feedback[]>('/feedback', { page_num: page, page_size: size });
      return { data: res.data ?? [], total: res.total ?? 0 };
    },
  });
}

export function useSendFeedback() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: FeedbackBody) => (await api.put<{ _id: string }>('/feedback', body)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['feedback'] }),
  });
}
