// Small shared pieces of the admin screens: switch, badge, two-step confirm, notices.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

export function Switch(props: { checked: boolean; onChange: (next: boolean) => void; label: string; busy?: boolean; disabled?: boolean }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={props.checked}
      aria-label={props.label}
      aria-busy={props.busy || undefined}
      disabled={props.disabled}
      className={`switch${props.checked ? ' on' : ''}${props.busy ? ' busy' : ''}`}
      onClick={() => props.onChange(!props.checked)}
    >
      <span className="knob" />
    </button>
  );
}

export function Badge(props: { tone: 'ok' | 'muted' | 'warn' | 'danger' | 'info'; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

/** A destructive button that asks once more in place instead of a browser dialog. */
export function ConfirmButton(props: { label: string; confirmLabel: string; onConfirm: () => void | Promise<void>; className?: string; disabled?: boolean }) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(t);
  }, [armed]);
  return (
    <button
      type="button"
      className={`${props.className ?? 'btn btn-ghost'}${armed ? ' btn-danger' : ''}`}
      disabled={props.disabled}
      onBlur={() => setArmed(false)}
      onClick={() => {
        if (!armed) return setArmed(true);
        setArmed(false);
        void props.onConfirm();
      }}
    >
      {armed ? props.confirmLabel : props.label}
    </button>
  );
}

interface Notice {
  id: number;
  tone: 'ok' | 'error';
  text: string;
}

const NoticeContext = createContext<(tone: Notice['tone'], text: string) => void>(() => {});

export function useNotify() {
  return useContext(NoticeContext);
}

/** Short-lived messages in a polite live region, bottom right. */
export function Notices(props: { children: ReactNode }) {
  const [list, setList] = useState<Notice[]>([]);
  const next = useRef(1);
  const notify = useCallback((tone: Notice['tone'], text: string) => {
    const id = next.current++;
    setList((l) => [...l.slice(-3), { id, tone, text }]);
    setTimeout(() => setList((l) => l.filter((n) => n.id !== id)), tone === 'error' ? 7000 : 3500);
  }, []);
  return (
    <NoticeContext.Provider value={notify}>
      {props.children}
      <div className="notices" aria-live="polite">
        {list.map((n) => (
          <div key={n.id} className={`notice notice-${n.tone}`} role={n.tone === 'error' ? 'alert' : 'status'}>
            {n.text}
          </div>
        ))}
      </div>
    </NoticeContext.Provider>
  );
}

/** The error text under a form field; `id` ties it to the field with aria-describedby. */
export function FieldError(props: { id: string; error: string | undefined }) {
  if (!props.error) return null;
  return (
    <div className="field-error" id={props.id}>
      {props.error}
    </div>
  );
}
