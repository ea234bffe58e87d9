import { useEffect } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { queryClient } from '../api/request.ts';
import { router } from './router.tsx';
import { useAppStore } from './stores/app.ts';
import { applyLanguage } from './language.ts';
import { loadedLanguage } from '../locales/index.ts';

export default function App() {
  const language = useAppStore((s) => s.language);
  useEffect(() => applyLanguage(language), [language]);
  return (
    <ConfigProvider
      locale={loadedLanguage(language).antd}
      theme={{ token: { colorPrimary: '#1677ff', borderRadius: 4 } }}
    >
      <AntApp>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
