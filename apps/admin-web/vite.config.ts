import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/optimizer/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  // `pnpm --filter @optimizer/admin-web dev` talks to a gateway started with `npm start` (PORT 8080)
  server: { proxy: { '/graphql': 'http://127.0.0.1:8080' } },
});
