import { create } from 'zustand';
import type { Role } from '@crawldeck/shared';

export interface UserInfo {
  _id?: string;
  username?: string;
  role?: Role;
  email?: string;
  setting?: { max_error_log?: number };
}

function readUserInfo(): UserInfo | null {
  try {
    const raw = localStorage.getItem('user_info');
    return raw ? (JSON.parse(raw) as UserInfo) : null;
  } catch {
    return null;
  }
}

interface UserState {
  token: string | null;
  user_info: UserInfo | null;
  role: Role | null;
  setToken: (token: string | null) => void;
  setUserInfo: (info: UserInfo | null) => void;
  clear: () => void;
}

const initialInfo = readUserInfo();

export const useUserStore = create<UserState>((set) => ({
  token: localStorage.getItem('token'),
  user_info: initialInfo,
  role: initialInfo?.role ?? null,
  setToken: (token) => {
    if (token) localStorage.setItem('token', token);
    else localStorage.removeItem('token');
    set({ token });
  },
  setUserInfo: (info) => {
    if (info) localStorage.setItem('user_info', JSON.stringify(info));
    else localStorage.removeItem('user_info');
    set({ user_info: info, role: info?.role ?? null });
  },
  clear: () => {
    localStorage.removeItem('token');
    localStorage.removeItem('user_info');
    set({ token: null, user_info: null, role: null });
  },
}));
