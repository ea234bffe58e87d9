import { useEffect } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import zhCN from 'antd/es/locale/zh_CN';
import enUS from 'antd/es/locale/en_US';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { queryClient } from '../api/request.ts';
import { router } from './router.tsx';
import { useAppStore } from './stores/app.ts';
import { applyLanguage } from './language.ts';

const antdLocales = { zh: zhCN, en: enUS } as const;

export default function App() {
  const language = useAppStore((s) => s.language);
  useEffect(() => applyLanguage(language), [language]);
  return (
    <ConfigProvider locale={antdLocales[language]} theme={{ token: { colorPrimary: '#1677ff', borderRadius: 4 } }}>
      <AntApp>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
