/** Settings: TanStack Query hooks for the admin setting, usage summary, variables, database and API tokens. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ActionSummaryRow,
  AdminSetting,
  ApiToken,
  CleanupResult,
  CreatedToken,
  CreateTokenBody,
  DatabaseInfo,
  UpdateSettingBody,
  Variable,
  VariableBody,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';
import { loadSetting } from '../../app/startup.ts';

export function useAdminSetting(enabled: boolean) {
  return useQuery({
    queryKey: ['system-setting'],
    enabled,
    queryFn: async () => (await api.get<AdminSetting>('/system/setting')).data,
  });
}

export function useSaveSetting() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateSettingBody) => (await api.post<AdminSetting>('/setting', body)).data,
    // A read of the settings still under way answers from before the save: it must not land after it.
    onMutate: () => qc.cancelQueries({ queryKey: ['system-setting'] }),
    onSuccess: (data) => {
      qc.setQueryData(['system-setting'], data);
      void loadSetting();
    },
  });
}

export function useActionSummary(enabled: boolean) {
  return useQuery({
    queryKey: ['actions-summary'],
    enabled,
    queryFn: async () => (await api.get<ActionSummaryRow[]>('/actions/summary', { days: 30 })).data ?? [],
  });
}

export function useVariables() {
  return useQuery({
    queryKey: ['variables'],
    queryFn: async () => (await api.get<Variable[]>('/variables')).data ?? [],
  });
}

export function useSaveVariable() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: VariableBody) => (await api.put<Variable>('/variable', body)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['variables'] }),
  });
}

export function useDeleteVariable() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/variable/${id}`)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['variables'] }),
  });
}

export function useDatabaseInfo(enabled: boolean) {
  return useQuery({
    queryKey: ['system-database'],
    enabled,
    queryFn: async () => (await api.get<DatabaseInfo>('/system/database')).data,
  });
}

export function useSaveRetention() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (days: number) =>
      (await api.post<DatabaseInfo>('/system/database', { log_retention_days: days })).data,
    onSuccess: (data) => qc.setQueryData(['system-database'], data),
  });
}

export function useCleanup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await api.post<CleanupResult>('/system/database/cleanup')).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['system-database'] }),
  });
}

export function useTokens() {
  return useQuery({ queryKey: ['api-tokens'], queryFn: async () => (await api.get<ApiToken[]>('/tokens')).data ?? [] });
}

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateTokenBody) => (await api.put<CreatedToken>('/tokens', body)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}

export function useRevokeToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/tokens/${id}`)).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: async (body: { password: string; current_password: string; revoke_tokens: boolean }) =>
      (await api.post('/me', body)).data,
  });
}
