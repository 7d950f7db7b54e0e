// Drag and drop for the pipeline board (move a card to another stage) and for the order of
// the lead stages in Settings. SortableJS moves the element; a same-origin call to the JSON
// API saves the move; on failure the element goes back and an error toast says why.
// Loaded only on the pages that need it. Without it the pages keep their forms: a stage
// select on each card, up and down buttons on each stage.
import Sortable, { type SortableEvent } from 'sortablejs';
import { request } from './lib/overlay';
import { formatError, toast } from './lib/toast';

const TOAST_MS = 5000;

interface Result {
  ok: boolean;
  message: string;
}

// send calls the API with a JSON body, with the loading overlay; the message is the
// envelope's (already in the user's language), or the spec's error text.
async function send(url: string, method: string, body: unknown, fallback: string): Promise<Result> {
  try {
    const res = await request(url, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    let data: unknown = null;
    try {
      data = await res.json();
    } catch {
      // no JSON body
    }
    if (res.status === 401) {
      location.href = '/login?next=' + encodeURIComponent(location.pathname + location.search);
    }
    if (res.ok) return { ok: true, message: String((data as { message?: unknown } | null)?.message ?? '') };
    return { ok: false, message: data ? formatError(data) : fallback };
  } catch {
    return { ok: false, message: fallback };
  }
}

// putBack returns a dragged element to where it was. Within one list the element is still
// there, so moving it back down skips past itself.
function putBack(e: SortableEvent): void {
  const from = e.from;
  let at = e.oldIndex ?? from.children.length;
  if (e.from === e.to && (e.newIndex ?? 0) < at) at++;
  from.insertBefore(e.item, from.children[at] ?? null);
}

const numbers = new Intl.NumberFormat(document.documentElement.lang || undefined);

// recount changes a column's count by delta (a capped count stays as it is).
function recount(list: HTMLElement, delta: number): void {
  const badge = list.closest('.board-column')?.querySelector<HTMLElement>('.column-count');
  if (!badge || badge.dataset.capped === 'true') return;
  const n = Math.max(0, Number(badge.dataset.count || 0) + delta);
  badge.dataset.count = String(n);
  badge.textContent = numbers.format(n);
}

function initBoard(board: HTMLElement): void {
  if (board.dataset.board !== 'edit') return;
  const fallback = board.dataset.errorText || 'Internal Server Error';
  for (const list of Array.from(board.querySelectorAll<HTMLElement>('.board-cards'))) {
    Sortable.create(list, {
      group: 'board',
      sort: false, // within a stage, cards stay newest first
      draggable: '.board-card',
      filter: 'select, button, option, label',
      preventOnFilter: false,
      animation: 150,
      ghostClass: 'board-card-ghost',
      onEnd: async (e) => {
        if (e.from === e.to) return;
        const card = e.item as HTMLElement;
        const stage = (e.to as HTMLElement).dataset.stageId;
        const r = await send(`/v1/api/lead/update-stage-customer-lead/${card.dataset.leadId}`, 'PATCH',
          { lead_stage_id: Number(stage) }, fallback);
        if (!r.ok) {
          putBack(e);
          toast(r.message, 'error', { timeout: TOAST_MS });
          return;
        }
        const select = card.querySelector<HTMLSelectElement>('select[name=lead_stage_id]');
        if (select && stage) select.value = stage;
        recount(e.from as HTMLElement, -1);
        recount(e.to as HTMLElement, +1);
        card.dataset.moved = stage || '';
        toast(r.message, 'success', { timeout: TOAST_MS });
      },
    });
  }
}

// initOrder lets the stage rows be dragged by their handle; the new order is saved at once.
function initOrder(body: HTMLElement): void {
  const url = body.dataset.stageOrder;
  if (!url) return;
  const fallback = body.dataset.errorText || 'Internal Server Error';
  const arrows = () => {
    const rows = Array.from(body.querySelectorAll<HTMLElement>('tr[data-id]'));
    rows.forEach((row, i) => {
      const up = row.querySelector<HTMLButtonElement>('input[value=up] + button');
      const down = row.querySelector<HTMLButtonElement>('input[value=down] + button');
      if (up) up.disabled = i === 0;
      if (down) down.disabled = i === rows.length - 1;
    });
  };
  Sortable.create(body, {
    handle: '.drag-handle',
    draggable: 'tr[data-id]',
    animation: 150,
    onEnd: async (e) => {
      if (e.oldIndex === e.newIndex) return;
      const ids = Array.from(body.querySelectorAll<HTMLElement>('tr[data-id]')).map((tr) => Number(tr.dataset.id));
      const r = await send(url, 'PUT', { ids }, fallback);
      if (!r.ok) {
        putBack(e);
        toast(r.message, 'error', { timeout: TOAST_MS });
      } else {
        toast(r.message, 'success', { timeout: TOAST_MS });
      }
      arrows();
    },
  });
}

for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-board]'))) initBoard(el);
for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-stage-order]'))) initOrder(el);
