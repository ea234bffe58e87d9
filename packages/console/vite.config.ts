import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The console is a static SPA served by the master from packages/console/dist (see @crawldeck/server).
// VITE_API_BASE (deploy-time) overrides the API root; default '/api'.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: true },
    },
  },
});
