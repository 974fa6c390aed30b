import './zod-locale.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { AdminApp } from './admin/AdminApp.tsx';
import './styles.css';

// Two screens, one bundle: the platform admin console under /optimizer/admin, the landing page elsewhere.
const isAdmin = /^\/optimizer\/admin(\/|$)/.test(window.location.pathname);

createRoot(document.getElementById('root')!).render(<StrictMode>{isAdmin ? <AdminApp /> : <App />}</StrictMode>);
