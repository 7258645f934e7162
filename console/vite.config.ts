/**
 * Vite build of the console. `npm run build:console` writes `console/dist`, which the gateway serves
 * at `/`; `npx vite --config console/vite.config.ts` serves it with hot reload, proxying `/api` and
 * `/v1` to a gateway on port 3000.
 */
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';
import { precompress } from './vite-precompress.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const gateway = process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  base: '/',
  plugins: [vue(), precompress()],
  // The wire shapes the console shares with the gateway: `@contracts/console-api.ts`.
  resolve: { alias: { '@contracts': fileURLToPath(new URL('../contracts', import.meta.url)) } },
  define: {
    // Composition API only; no devtools hooks in the build; vue-i18n without the legacy API.
    __VUE_OPTIONS_API__: 'false',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    __VUE_I18N_FULL_INSTALL__: 'true',
    __VUE_I18N_LEGACY_API__: 'false',
    __INTLIFY_PROD_DEVTOOLS__: 'false',
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The overview's chunk carries ECharts (tree-shaken to the charts it registers).
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: { '/api': gateway, '/v1': gateway },
  },
});
