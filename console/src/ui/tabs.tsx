import { useRef, type KeyboardEvent } from 'react';

export interface TabEntry<T extends string> {
  id: T;
  title: string;
}

/**
 * Tabs (the ARIA tabs pattern: arrow keys, Home and End move between them). Each tab `<prefix>-tab-<id>`
 * controls the panel `<prefix>-panel-<id>`, which the page renders (TabPanel).
 */
export function Tabs<T extends string>({
  tabs,
  tab,
  onTab,
  label,
  prefix,
}: {
  tabs: readonly TabEntry<T>[];
  tab: T;
  onTab: (t: T) => void;
  label: string;
  prefix: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const move = (e: KeyboardEvent, i: number) => {
    const to =
      e.key === 'ArrowRight'
        ? (i + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (i + tabs.length - 1) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    onTab(tabs[to].id);
    refs.current[to]?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`${prefix}-tab-${t.id}`}
          aria-selected={tab === t.id}
          aria-controls={`${prefix}-panel-${t.id}`}
          tabIndex={tab === t.id ? 0 : -1}
          onClick={() => onTab(t.id)}
          onKeyDown={(e) => move(e, i)}
        >
          {t.title}
        </button>
      ))}
    </div>
  );
}

/** The panel of the tab `id` (labelled by its tab); `hidden` keeps it, and its state, while another tab shows. */
export function TabPanel({ prefix, id, hidden, children }: { prefix: string; id: string; hidden?: boolean; children: React.ReactNode }) {
  return (
    <div
      role="tabpanel"
      id={`${prefix}-panel-${id}`}
      aria-labelledby={`${prefix}-tab-${id}`}
      tabIndex={0}
      className="tab-panel"
      hidden={hidden}
    >
      {children}
    </div>
  );
}
