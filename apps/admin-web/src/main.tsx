import './zod-locale.ts';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import './styles.css';

// Two screens, one build: the platform admin console under /optimizer/admin, the tenant
// dashboard elsewhere, each loaded as its own chunk (the dashboard's charts stay out of the
// admin console and the other way round).
const isAdmin = /^\/optimizer\/admin(\/|$)/.test(window.location.pathname);
const Screen = lazy(() => (isAdmin ? import('./admin/AdminApp.tsx').then((m) => ({ default: m.AdminApp })) : import('./dashboard/DashboardApp.tsx').then((m) => ({ default: m.DashboardApp }))));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Suspense fallback={null}>
      <Screen />
    </Suspense>
  </StrictMode>,
);
