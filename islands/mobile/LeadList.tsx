// The lead list screen (spec sections 2 and 4): header and side menu, won/lost cards,
// sort and filter panels (never both open), search, and the cards, 20 a page, more as
// the user scrolls. Online it asks the server; offline it shows the leads saved on the
// phone; when the server cannot be reached it shows the cached list. Leads waiting in
// the queue come first, marked.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, listLeads, type LeadPage } from './api';
import { configReady } from './config';
import { t } from './i18n';
import { applyQuery, isDefaultQuery } from './leads';
import type { QueuedLead } from './queue';
import { onSynced } from './queue';
import { LeadCard } from './LeadCard';
import { Link, ROUTES } from './router';
import { SideMenu } from './SideMenu';
import { readOnlineCache, writeOnlineCache } from './storage';
import type { Lead, ListQuery, Masters, Profile, SortKey, Summary } from './types';

interface Props {
  online: boolean;
  queue: QueuedLead[];
  profile: Profile | null;
  masters: Masters;
  requestMasters: () => void;
  /** The first page the server rendered into the page (default query), shown at once. */
  initial?: LeadPage | null;
  /** What the user did on the server-drawn list before the island took it over. */
  early?: EarlyInput;
}

/** EarlyInput is what the user did on the server-drawn list before the island mounted. */
export interface EarlyInput {
  /** Text typed into the search field, and whether the field still had the focus. */
  search: string;
  searchFocused: boolean;
  /** The last of the sort, filter and menu buttons tapped. */
  tapped?: 'sort' | 'filter' | 'menu';
}

type Source = 'server' | 'cache' | 'phone';

interface ListState {
  leads: Lead[];
  total: number;
  page: number;
  source: Source;
}

const SEARCH_DEBOUNCE_MS = 300;
/** How near the end of the list (px below the screen) the next page is asked for. */
const NEAR_END_PX = 200;
const sorts: SortKey[] = ['recent', 'name', 'stage'];
const initialQuery: ListQuery = { search: '', sort: 'recent', stage: 0, status: 0 };

export function LeadList({ online, queue, profile, masters, requestMasters, initial, early }: Props) {
  const [query, setQuery] = useState<ListQuery>(initialQuery);
  // What the user did before the island mounted carries on here: the text typed is searched
  // for once they pause, as if typed here, and the panel or menu tapped is open.
  const [searchText, setSearchText] = useState(() => early?.search ?? '');
  const [panel, setPanel] = useState<'sort' | 'filter' | null>(() => (early?.tapped === 'sort' || early?.tapped === 'filter' ? early.tapped : null));
  const [menuOpen, setMenuOpen] = useState(() => early?.tapped === 'menu');
  // With the server's first page the first render is the loaded list, as the server drew it.
  const [first] = useState(() => initial ?? null);
  const [list, setList] = useState<ListState>(() => first
    ? { leads: first.result ?? [], total: first.total, page: 1, source: 'server' }
    : { leads: [], total: 0, page: 0, source: 'phone' });
  const [summary, setSummary] = useState<Summary | null>(first?.summary ?? null);
  const [loading, setLoading] = useState(first === null);
  const [loadingMore, setLoadingMore] = useState(false);
  // A failed next page is not asked for again until the list reloads.
  const [moreFailed, setMoreFailed] = useState(false);
  const generation = useRef(0);
  const menuButton = useRef<HTMLButtonElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const mastersRef = useRef(masters);
  mastersRef.current = masters;

  const load = useCallback(async (q: ListQuery, quiet = false) => {
    const gen = ++generation.current;
    if (!quiet) setLoading(true);
    const { pageSize } = await configReady();
    let next: ListState = { leads: [], total: 0, page: 0, source: 'phone' };
    let sum: Summary | null = null;
    if (navigator.onLine) {
      try {
        const res = await listLeads(q, 1, pageSize);
        next = { leads: res.result ?? [], total: res.total, page: 1, source: 'server' };
        sum = res.summary ?? null;
        if (isDefaultQuery(q) && next.leads.length > 0) {
          await writeOnlineCache({ result: next.leads, total: res.total, summary: res.summary, savedAt: new Date().toISOString() });
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return;
        console.error('lead list failed; using the leads on the phone', err);
        const cached = await readOnlineCache();
        if (cached?.result?.length) {
          next = { leads: applyQuery(cached.result, q, mastersRef.current.stages), total: cached.result.length, page: 1, source: 'cache' };
          sum = cached.summary ?? null;
        }
      }
    } else {
      // Offline: the list last fetched, with the leads waiting to sync on top (not only them).
      const cached = await readOnlineCache();
      if (cached?.result?.length) {
        next = { leads: applyQuery(cached.result, q, mastersRef.current.stages), total: cached.result.length, page: 1, source: 'cache' };
      }
      sum = cached?.summary ?? null;
    }
    if (gen !== generation.current) return;
    setList(next);
    setSummary(sum);
    setMoreFailed(false);
    setLoading(false);
  }, []);

  const loadMore = useCallback(async () => {
    if (loading || loadingMore || moreFailed || list.source !== 'server' || list.leads.length >= list.total || !navigator.onLine) return;
    const gen = generation.current;
    setLoadingMore(true);
    try {
      const { pageSize } = await configReady();
      const res = await listLeads(query, list.page + 1, pageSize);
      if (gen !== generation.current) return;
      const seen = new Set(list.leads.map((l) => l.id));
      const leads = [...list.leads, ...(res.result ?? []).filter((l) => !seen.has(l.id))];
      setList({ leads, total: res.total, page: list.page + 1, source: 'server' });
      if (res.summary) setSummary(res.summary);
      if (isDefaultQuery(query)) {
        await writeOnlineCache({ result: leads, total: res.total, summary: res.summary, savedAt: new Date().toISOString() });
      }
    } catch (err) {
      console.error('more leads failed', err);
      if (gen === generation.current) setMoreFailed(true);
    } finally {
      setLoadingMore(false);
    }
  }, [loading, loadingMore, moreFailed, list, query]);

  useEffect(() => {
    document.title = t('leads.title');
  }, []);

  // Taken over from the server's render: the search field's focus, the caret after the text
  // (unless a panel or the menu was tapped since), and the filter panel's masters.
  const earlyRef = useRef(early);
  useEffect(() => {
    const e = earlyRef.current;
    earlyRef.current = undefined;
    if (e?.tapped === 'filter') requestMasters();
    if (e?.searchFocused && !e.tapped) {
      const el = searchInput.current;
      el?.focus();
      el?.setSelectionRange(el.value.length, el.value.length);
    }
  }, [requestMasters]);

  // Load on open and on every query change; refresh when the connection comes back and
  // after leads from the queue reached the server.
  const firstShown = useRef(first !== null);
  useEffect(() => {
    if (firstShown.current) {
      // The page came with this query's first page: no need to ask again, only to keep it
      // on the phone for offline use, as a load would.
      firstShown.current = false;
      if (first && first.result.length > 0) {
        writeOnlineCache({ result: first.result, total: first.total, summary: first.summary, savedAt: new Date().toISOString() })
          .catch((err) => console.error('online cache', err));
      }
      return;
    }
    void load(query);
  }, [load, query, first]);
  const wasOnline = useRef(online);
  useEffect(() => {
    if (online && !wasOnline.current) void load(query, true);
    wasOnline.current = online;
  }, [online, load, query]);
  useEffect(() => onSynced(() => void load(query, true)), [load, query]);

  // The search asks once the user pauses typing.
  useEffect(() => {
    if (searchText === query.search) return;
    const timer = setTimeout(() => setQuery((q) => ({ ...q, search: searchText })), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchText, query.search]);

  // More leads when the end of the list scrolls into view. Whether it is in view is asked
  // again when the observer's report arrives: the report may come after a render that moved
  // the end away (a list loaded while the end showed under "Loading"), and the next page
  // would then be asked for with nobody at the end.
  const sentinel = useRef<HTMLDivElement>(null);
  const more = useRef(loadMore);
  more.current = loadMore;
  const moreIfAtEnd = useCallback(() => {
    const el = sentinel.current;
    if (el && el.getBoundingClientRect().top < window.innerHeight + NEAR_END_PX) void more.current();
  }, []);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver !== 'function') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) moreIfAtEnd();
    }, { rootMargin: `${NEAR_END_PX}px` });
    io.observe(el);
    return () => io.disconnect();
  }, [moreIfAtEnd]);
  // A page that does not fill the screen leaves the sentinel in view: ask again.
  useEffect(() => {
    if (!loading && !loadingMore) moreIfAtEnd();
  }, [list, loading, loadingMore, moreIfAtEnd]);

  const waiting = useMemo(() => {
    const onServer = new Set(list.leads.map((l) => l.client_id).filter(Boolean));
    const visible = queue.filter((x) => !onServer.has(x.client_id));
    const byId = new Map(visible.map((x) => [x.client_id, x]));
    return applyQuery(visible.map((x) => x.display), query, masters.stages).map((l) => byId.get(l.client_id as string)!);
  }, [queue, list.leads, query, masters.stages]);
  const waitingCount = queue.filter((x) => x.state === 'waiting').length;

  const togglePanel = (p: 'sort' | 'filter') => {
    if (p === 'filter') requestMasters();
    setPanel((cur) => (cur === p ? null : p));
  };

  const closeMenu = () => {
    setMenuOpen(false);
    menuButton.current?.focus();
  };

  const empty = !loading && waiting.length === 0 && list.leads.length === 0;

  return (
    <div className="m-screen">
      <header className="m-header">
        <button ref={menuButton} type="button" className="m-icon-btn" aria-label={t('menu.open')} aria-haspopup="dialog"
          aria-expanded={menuOpen} data-testid="menu-button" onClick={() => setMenuOpen(true)}>
          <span className="m-icon m-icon-menu" aria-hidden="true" />
        </button>
        <h1 className="m-title" tabIndex={-1} data-screen-title>{t('leads.title')}</h1>
        {waitingCount > 0 && (
          <span className="m-sync-count" role="status" data-testid="waiting-count">
            {t('sync.waitingCount', { count: waitingCount })}
          </span>
        )}
        <Link href={ROUTES.addLead} className="m-icon-btn m-add" aria-label={t('leads.add')} data-testid="add-lead">
          <span className="m-icon m-icon-plus" aria-hidden="true" />
        </Link>
      </header>
      <SideMenu open={menuOpen} profile={profile} onClose={closeMenu} />

      <main className="m-main" id="main">
        {!online && <p className="m-note" role="status" data-testid="offline-note">{t('sync.offline')}</p>}
        {online && list.source === 'cache' && !loading && (
          <p className="m-note" role="status" data-testid="cache-note">{t('sync.cached')}</p>
        )}

        <ul className="m-summary">
          <li className="m-summary-card m-won" data-testid="leads-won">
            <span className="m-summary-value">{summary ? summary.won : '–'}</span>
            <span className="m-summary-label">{t('leads.won')}</span>
          </li>
          <li className="m-summary-card m-lost" data-testid="leads-lost">
            <span className="m-summary-value">{summary ? summary.lost : '–'}</span>
            <span className="m-summary-label">{t('leads.lost')}</span>
          </li>
        </ul>

        <div className="m-tools">
          <div className="m-search">
            <label htmlFor="lead-search" className="sr-only">{t('search.label')}</label>
            <input ref={searchInput} id="lead-search" type="search" value={searchText} placeholder={t('search.placeholder')}
              autoComplete="off" enterKeyHint="search" data-testid="search"
              onChange={(e) => setSearchText(e.target.value)} />
            {searchText && (
              <button type="button" className="m-icon-btn m-search-clear" aria-label={t('search.clear')} data-testid="search-clear"
                onClick={() => {
                  setSearchText('');
                  setQuery((q) => ({ ...q, search: '' }));
                  searchInput.current?.focus();
                }}>
                <span className="m-icon m-icon-close" aria-hidden="true" />
              </button>
            )}
          </div>
          <button type="button" className="m-tool-btn" aria-expanded={panel === 'sort'} aria-controls="sort-panel"
            data-testid="sort-button" onClick={() => togglePanel('sort')}>
            <span className="m-icon m-icon-sort" aria-hidden="true" />
            {t('leads.sort')}
          </button>
          <button type="button" className="m-tool-btn" aria-expanded={panel === 'filter'} aria-controls="filter-panel"
            data-testid="filter-button" onClick={() => togglePanel('filter')}>
            <span className="m-icon m-icon-filter" aria-hidden="true" />
            {t('leads.filter')}
          </button>
        </div>

        {panel === 'sort' && (
          <SortPanel value={query.sort} onChange={(sort) => {
            setQuery((q) => ({ ...q, sort }));
            setPanel(null);
          }} />
        )}
        {panel === 'filter' && (
          <FilterPanel masters={masters} stage={query.stage} status={query.status} onApply={(stage, status) => {
            setQuery((q) => ({ ...q, stage, status }));
            setPanel(null);
          }} />
        )}

        {loading && <p className="m-state" role="status" data-testid="list-loading">{t('leads.loading')}</p>}
        {empty && <p className="m-state" role="status" data-testid="list-empty">{t('leads.empty')}</p>}
        {!loading && (
          <ul className="m-cards" aria-label={t('leads.title')} data-testid="lead-list">
            {waiting.map((x) => (
              <li key={x.client_id}><LeadCard lead={x.display} sync={x.state} error={x.error} /></li>
            ))}
            {list.leads.map((l) => (
              <li key={l.id}><LeadCard lead={l} /></li>
            ))}
          </ul>
        )}
        <div ref={sentinel} className="m-sentinel" aria-hidden="true" />
        {loadingMore && <p className="m-state" role="status">{t('leads.loadingMore')}</p>}
      </main>
    </div>
  );
}

function SortPanel({ value, onChange }: { value: SortKey; onChange: (s: SortKey) => void }) {
  return (
    <fieldset id="sort-panel" className="m-panel-box" data-testid="sort-panel">
      <legend>{t('leads.sortBy')}</legend>
      {sorts.map((s) => (
        <label key={s} className="m-radio">
          <input type="radio" name="sort" value={s} checked={value === s} onChange={() => onChange(s)} data-testid={'sort-' + s} />
          {t('sort.' + s)}
        </label>
      ))}
    </fieldset>
  );
}

interface FilterProps {
  masters: Masters;
  stage: number;
  status: number;
  onApply: (stage: number, status: number) => void;
}

function FilterPanel({ masters, stage: stage0, status: status0, onApply }: FilterProps) {
  const [stage, setStage] = useState(stage0);
  const [status, setStatus] = useState(status0);
  return (
    <form id="filter-panel" className="m-panel-box" data-testid="filter-panel" onSubmit={(e) => {
      e.preventDefault();
      onApply(stage, status);
    }}>
      <div className="m-field">
        <label htmlFor="filter-stage">{t('filter.stage')}</label>
        <select id="filter-stage" value={stage} onChange={(e) => setStage(Number(e.target.value))} data-testid="filter-stage">
          <option value={0}>{t('filter.all')}</option>
          {masters.stages.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
      </div>
      <div className="m-field">
        <label htmlFor="filter-status">{t('filter.status')}</label>
        <select id="filter-status" value={status} onChange={(e) => setStatus(Number(e.target.value))} data-testid="filter-status">
          <option value={0}>{t('filter.all')}</option>
          {masters.statuses.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
      </div>
      <div className="m-actions">
        <button type="button" className="m-btn" data-testid="filter-reset" onClick={() => {
          setStage(0);
          setStatus(0);
          onApply(0, 0);
        }}>{t('filter.reset')}</button>
        <button type="submit" className="m-btn m-btn-primary" data-testid="filter-apply">{t('filter.apply')}</button>
      </div>
    </form>
  );
}
