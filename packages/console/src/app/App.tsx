import { useEffect } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { queryClient } from '../api/request.ts';
import { useToastsFrom } from '../api/toasts.ts';
import { router } from './router.tsx';
import { useAppStore } from './stores/app.ts';
import { applyLanguage } from './language.ts';
import { loadedLanguage } from '../locales/index.ts';

/** Hands the app's message instance to the calls made outside React, so every toast goes to one stack. */
function ToastsBridge() {
  useToastsFrom(AntApp.useApp().message);
  return null;
}

export default function App() {
  const language = useAppStore((s) => s.language);
  useEffect(() => applyLanguage(language), [language]);
  return (
    <ConfigProvider
      locale={loadedLanguage(language).antd}
      theme={{ token: { colorPrimary: '#1677ff', borderRadius: 4 } }}
    >
      <AntApp>
        <ToastsBridge />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
