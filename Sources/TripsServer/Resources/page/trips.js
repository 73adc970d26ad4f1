// Trips in a browser: drag and drop, keyboard actions and live updates, over the same
// HTTP API curl uses. The server renders every trip: after a change, and on every event
// of /trips/changes, this script fetches the page again and swaps #view
// (Sources/TripsServer/Page/TripsListPage.swift). Nothing here renders a trip.
'use strict';

document.documentElement.classList.add('js');

const EVENT_KINDS = ['created', 'updated', 'deleted', 'reordered', 'sorted', 'favorites'];
const STALE = 'The list changed since this page showed it, so nothing was changed. This is the current list.';
/** The types the server keeps a photo in: any other file is refused here, before it is sent. */
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
/** From this size on, a photo's upload shows its progress: smaller ones are sent at once. */
const LARGE_PHOTO = 256 * 1024;

// MARK: - Words

/** The page's language, as the server chose it from Accept-Language. */
const LANGUAGE = document.documentElement.lang || 'en';
/** CLDR's plural rules and number symbols for it, as the browser has them. */
const PLURALS = new Intl.PluralRules(LANGUAGE);
const NUMBERS = new Intl.NumberFormat(LANGUAGE);

/** The phrase for `key` in the page's language (WORDS: /assets/words/<tag>.js, the
 *  server's own catalog), each {name} replaced by its value. */
function t(key, values = {}) {
  const phrase = (typeof WORDS === 'object' && WORDS[key]) || key;
  return phrase.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** The form of a counted phrase that goes with `count`, as the language's plural rules
 *  pick it ("1 trip", "2 noce"). */
function tc(key, count, values = {}) {
  return t(`${key}.${PLURALS.select(count)}`, { ...values, count: NUMBERS.format(count) });
}

const $ = (selector, root = document) => root.querySelector(selector);
const view = () => $('#view');
const rows = () => [...document.querySelectorAll('#trips > li.trip')];
const rowFor = (id) => $(`#trips > li.trip[data-id="${id}"]`);
const stripPhotoFor = (id) => $(`.strip-photo[data-id="${id}"]`);
const tripOf = (element) => element.closest('[data-id]');
const cityOf = (id) => $('.city', rowFor(id) ?? document)?.textContent ?? `trip ${id}`;
const isReorderable = () => view()?.dataset.reorderable === 'true';

/** Ids of the selected trips, kept across refreshes of the list. */
const selection = new Set();
/** The ids a drag that started on this page carries; null for a drag from elsewhere. */
let dragged = null;
/** The newest revision whose favorites change was celebrated, so it is celebrated once. */
let celebrated = 0;
/** Until when the Favorites chip celebrates: a refresh mid-animation carries it on. */
let celebratingUntil = 0;

// MARK: - Talking to the API

/** The token the server asked for, kept for this tab only. */
let token = sessionStorage.getItem('trips-token');
/** Resolves the pending request for a token when the token form is submitted. */
let tokenGiven = null;

/**
 * Sends a request to the API and answers its response. `json` is sent as JSON (or `raw`
 * with `type`); `ifMatch` makes the change conditional; `minimal` asks for no resource in the
 * answer (`Prefer: return=minimal`); `onProgress` is told the fraction of the body sent. A
 * 401 asks for a token once and sends the request again with it.
 */
async function send(method, url, { json, raw, type, ifMatch, minimal, accept = 'application/json', onProgress } = {}) {
  for (;;) {
    const headers = { Accept: accept };
    if (minimal) headers.Prefer = 'return=minimal';
    if (token) headers.Authorization = `Bearer ${token}`;
    if (ifMatch) headers['If-Match'] = ifMatch;
    let body;
    if (json !== undefined) [body, headers['Content-Type']] = [JSON.stringify(json), 'application/json'];
    if (raw !== undefined) [body, headers['Content-Type']] = [raw, type];
    const response = onProgress
      ? await sendWithProgress(method, url, headers, body, onProgress)
      : await fetch(url, { method, headers, body, cache: 'no-store' });
    if (response.status !== 401) return response;
    token = await askForToken();
    sessionStorage.setItem('trips-token', token);
  }
}

/** The same request through XMLHttpRequest, whose upload events tell how much of the body
 *  has gone (fetch tells nothing of that), answered as a Response, as fetch answers. */
function sendWithProgress(method, url, headers, body, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      const init = { status: request.status, statusText: request.statusText };
      resolve(new Response(request.responseText || null, init));
    });
    request.addEventListener('error', () => reject(new TypeError('The connection failed.')));
    request.addEventListener('abort', () => reject(new TypeError('The request was stopped.')));
    request.send(body);
  });
}

function askForToken() {
  const panel = $('#token');
  if (!panel) return Promise.reject(new Error('no token form'));
  panel.hidden = false;
  $('input', panel).focus();
  announce('This server needs a token to make changes.');
  return new Promise((resolve) => { tokenGiven = resolve; });
}

/** Tells what went wrong: the problem document's detail, or the status. */
async function complain(response) {
  if (response.status === 412) return stale();
  announce(await problemOf(response));
}

/** What went wrong, in the server's words: the problem document's detail, or the status. */
async function problemOf(response) {
  const status = `${response.status} ${response.statusText}`;
  try { return (await response.json()).detail ?? status; } catch { return status; /* not a problem document */ }
}

async function stale() {
  await refresh();
  announce(STALE);
}

// MARK: - Showing the list

let refreshing = null;
let refreshAgain = false;

/** Fetches this page again and swaps #view, keeping focus and selection; calls that come
 *  while one runs are folded into one more. */
function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      // Long lists: as many rows as the reader has loaded, maybe several pages' worth.
      const { response, fresh } = await fetchLoadedView();
      if (response.status === 404) {
        announce('This trip was deleted.');
        break;
      }
      if (!response.ok) break;
      const focused = document.activeElement;
      const focusedTrip = focused && tripOf(focused)?.dataset.id;
      const focusedAction = focused?.dataset?.action;
      const anchor = scrollAnchor();
      view().replaceWith(document.adoptNode(fresh));
      restoreScroll(anchor); // the same row at the same height, though rows above changed
      watchEnd(); // the new view's "Next page" link
      showSelection();
      if (Date.now() < celebratingUntil) $('#favorites-chip')?.classList.add('celebrate');
      if (focusedAction === 'enlarge') {
        (stripPhotoFor(focusedTrip) ?? rowFor(focusedTrip))?.focus();
      } else if (focusedTrip) {
        const row = rowFor(focusedTrip);
        (focusedAction && row && $(`[data-action="${focusedAction}"]`, row) || row)?.focus();
      }
    } while (refreshAgain);
  })().finally(() => { refreshing = null; });
  return refreshing;
}

function showSelection() {
  const shown = new Set(rows().map((row) => row.dataset.id));
  for (const id of selection) if (!shown.has(id)) selection.delete(id);
  for (const row of rows()) {
    const isSelected = selection.has(row.dataset.id);
    row.classList.toggle('selected', isSelected);
    $('[data-action="select"]', row)?.setAttribute('aria-pressed', String(isSelected));
  }
}

function toggleSelection(row) {
  const id = row.dataset.id;
  if (!selection.delete(id)) selection.add(id);
  showSelection();
  announce(`${selection.size} selected.`);
}

/** The trips an action on `row` applies to: the selection when the row is in it. */
function sourcesFor(row) {
  if (!selection.has(row.dataset.id)) return [Number(row.dataset.id)];
  return rows().filter((r) => selection.has(r.dataset.id)).map((r) => Number(r.dataset.id));
}

function announce(message) {
  const status = $('#status');
  status.textContent = '';
  requestAnimationFrame(() => { status.textContent = message; });
}

function names(ids) {
  const cities = ids.map(cityOf);
  return cities.length <= 2 ? cities.join(' and ') : `${cities.length} trips`;
}

// MARK: - Changes

/** Moves `ids` in front of trip `before`, or to the end: the reorder difference. */
async function reorder(ids, before) {
  const what = names(ids);
  const where = before ? `before ${cityOf(before)}` : 'to the end';
  const destination = before ? { before } : 'end';
  // The page fetches itself again after a change, so it asks for no list in the answer.
  const response = await send('PATCH', '/trips', { json: { sources: ids, destination }, ifMatch: view().dataset.etag, minimal: true });
  if (!response.ok) return complain(response);
  await refresh();
  announce(`Moved ${what} ${where}.`);
}

/** A drop on the Favorites chip: the server answers which trips newly became favorites. */
async function makeFavorites(request) {
  const response = await send('POST', '/favorites', request);
  if (!response.ok) return complain(response);
  const { added } = await response.json();
  selection.clear();
  await refresh();
  if (added.length > 0) celebrate(Number(response.headers.get('Trips-Revision')));
  announce(added.length > 0 ? `Added ${names(added)} to Favorites.` : 'They were favorites already.');
}

/** The lesson's success haptic: a short animation, and a vibration where there is one. */
function celebrate(revision) {
  if (revision && revision <= celebrated) return;
  celebrated = Math.max(celebrated, revision || 0);
  celebratingUntil = Date.now() + 600;
  const chip = $('#favorites-chip');
  chip?.classList.remove('celebrate');
  void chip?.offsetWidth; // restarts the animation
  chip?.classList.add('celebrate');
  navigator.vibrate?.(40);
}

/** Text dropped from another app: one sentence per line becomes trips, where it landed. */
async function createFromText(text, before) {
  const url = before ? `/trips?before=${before}` : '/trips';
  const response = await send('POST', url, { raw: text, type: 'text/plain' });
  if (!response.ok) return complain(response);
  const created = await response.json();
  await refresh();
  const count = Array.isArray(created) ? created.length : 1;
  announce(count === 1 ? `Added ${created.city ?? created[0].city}.` : `Added ${count} trips.`);
}

async function setFavorite(row, isFavorite) {
  const method = isFavorite ? 'PUT' : 'DELETE';
  const response = await send(method, `/favorites/${row.dataset.id}`, { ifMatch: row.dataset.etag });
  if (!response.ok) return complain(response);
  const city = cityOf(row.dataset.id);
  await refresh();
  announce(isFavorite ? `${city} is a favorite.` : `${city} is no longer a favorite.`);
}

/** Move up or down by one place: in front of the trip before the block, or past the next. */
function moveByOne(row, step) {
  if (!isReorderable()) return announce('Reordering is off while a filter, a search or a sort is on.');
  const ids = sourcesFor(row);
  const all = rows().map((r) => Number(r.dataset.id));
  const first = all.indexOf(ids[0]);
  const last = all.indexOf(ids[ids.length - 1]);
  if (step < 0) {
    const previous = first > 0 ? all[first - 1] : pageStartsAfter();
    if (!previous) return announce(`${names(ids)} is at the top.`);
    return reorder(ids, previous);
  }
  // The trip to land in front of is not loaded yet: load the next page, then move.
  if (last + 2 >= all.length && hasMore()) return loadMore().then((loaded) => loaded && moveByOne(rowFor(row.dataset.id) ?? row, step));
  if (last >= all.length - 1) return announce(`${names(ids)} is at the end.`);
  return reorder(ids, all[last + 2]);
}

// MARK: - Photos

/** The one photo in a drop of files, or null after saying why there is none to send. */
function photoFile(files) {
  if (files.length !== 1) {
    announce('Drop one photo at a time.');
    return null;
  }
  const [file] = files;
  if (!PHOTO_TYPES.includes(file.type)) {
    announce(`${file.name} is not a JPEG, PNG or WebP photo, so it was not sent.`);
    return null;
  }
  return file;
}

/**
 * PUTs `file` as trip `id`'s photo, its type as the Content-Type; a large one shows its
 * progress meanwhile. Answers the response, or null when the connection failed (and says so).
 */
async function sendPhoto(id, file, city, ifMatch) {
  const progress = $('#upload');
  const isLarge = file.size >= LARGE_PHOTO;
  if (isLarge) {
    progress.value = 0;
    progress.hidden = false;
    announce(`Sending the photo of ${city}…`);
  }
  try {
    const onProgress = (fraction) => { progress.value = fraction; };
    return await send('PUT', `/trips/${id}/photo`, { raw: file, type: file.type, ifMatch, onProgress });
  } catch {
    announce(`The photo of ${city} could not be sent: the connection failed.`);
    return null;
  } finally {
    if (isLarge) progress.hidden = true;
  }
}

/** An image file dropped onto a trip: its new photo. */
async function setPhoto(row, file) {
  const city = cityOf(row.dataset.id);
  const response = await sendPhoto(row.dataset.id, file, city, row.dataset.etag);
  if (!response) return;
  if (!response.ok) return complain(response);
  await refresh();
  announce(`${city} has a new photo.`);
}

/** A photo dropped between two trips (or at the end), waiting in the add form for the trip
 *  it will belong to: {file, before}, before undefined for the end. */
let attachedPhoto = null;

/** Opens the add form for a trip at the drop's place, the photo shown in it. */
function attachPhoto(file, before) {
  detachPhoto();
  attachedPhoto = { file, before };
  const where = before ? `before ${cityOf(before)}` : 'at the end';
  const figure = $('#add-photo');
  $('img', figure).src = URL.createObjectURL(file);
  $('#add-photo-where').textContent = `${file.name}: the new trip goes ${where}.`;
  figure.hidden = false;
  $('#add-form').elements.city.focus();
  announce(`Photo attached. Fill in the trip to add it ${where}.`);
}

function detachPhoto() {
  if (!attachedPhoto) return;
  attachedPhoto = null;
  const figure = $('#add-photo');
  URL.revokeObjectURL($('img', figure).src);
  $('img', figure).removeAttribute('src');
  figure.hidden = true;
}

// MARK: - Forms: add, edit, delete, token

/** JSON for a draft, with the price written exactly as typed (a decimal, not a float). */
function draftBody(form) {
  const data = new FormData(form);
  const price = String(data.get('price') ?? '0').trim();
  if (!/^\d+(\.\d+)?$/.test(price)) throw new Error('The price is a number such as 1299.99.');
  const draft = {
    city: data.get('city'), country: data.get('country'), nights: Number(data.get('nights')),
    start: data.get('start'), notes: data.get('notes') ?? '',
  };
  if (form.elements.isFavorite) draft.isFavorite = form.elements.isFavorite.checked;
  return `${JSON.stringify(draft).slice(0, -1)},"price":${price}}`;
}

/** Sends the form's draft; answers the trip, or null after saying what went wrong. */
async function submitDraft(form, method, url, type, ifMatch) {
  let body;
  try { body = draftBody(form); } catch (error) {
    announce(error.message);
    return null;
  }
  const response = await send(method, url, { raw: body, type, ifMatch });
  if (response.ok) return response.json();
  await complain(response);
  return null;
}

/** Adds the form's trip: where its attached photo was dropped, then with that photo. */
async function addTrip(form) {
  const photo = attachedPhoto;
  const url = photo?.before ? `/trips?before=${photo.before}` : '/trips';
  const trip = await submitDraft(form, 'POST', url, 'application/json');
  if (!trip) return;
  form.reset();
  detachPhoto();
  if (!photo) {
    announce(`Added ${trip.city}.`);
    return refresh();
  }
  const response = await sendPhoto(trip.id, photo.file, trip.city);
  await refresh();
  if (!response) return;
  announce(response.ok ? `Added ${trip.city} with its photo.` : `Added ${trip.city}, but not its photo: ${await problemOf(response)}`);
}

async function saveEdit(form) {
  const trip = await submitDraft(form, 'PATCH', `/trips/${form.dataset.id}`, 'application/merge-patch+json', form.dataset.etag);
  if (trip) {
    $('#editor').hidden = true;
    announce(`Saved ${trip.city}.`);
    await refresh();
  }
  rowFor(form.dataset.id)?.focus();
}

function edit(row) {
  const trip = JSON.parse(row.dataset.json);
  const form = $('#edit-form');
  for (const name of ['city', 'country', 'nights', 'notes']) form.elements[name].value = trip[name];
  form.elements.start.value = trip.start.slice(0, 10);
  // The price as the server wrote it: JSON.parse would round a long decimal to a double.
  form.elements.price.value = row.dataset.json.match(/"price":([0-9.eE+-]+)/)[1];
  form.dataset.id = row.dataset.id;
  form.dataset.etag = row.dataset.etag;
  $('#editor').hidden = false;
  form.elements.city.focus();
}

let pendingDelete = null;

function askToDelete(ids) {
  pendingDelete = ids;
  $('#confirm-title').textContent = `Delete ${names(ids)}?`;
  $('#confirm').hidden = false;
  $('[data-action="confirm-delete"]').focus();
}

async function confirmDelete() {
  const ids = pendingDelete;
  $('#confirm').hidden = true;
  pendingDelete = null;
  if (!ids) return;
  const what = names(ids);
  const response = ids.length === 1
    ? await send('DELETE', `/trips/${ids[0]}`, { ifMatch: rowFor(ids[0])?.dataset.etag })
    : await send('DELETE', `/trips?ids=${ids.join(',')}`, { ifMatch: view().dataset.etag });
  if (!response.ok) return complain(response);
  const next = rows().find((r) => !ids.includes(Number(r.dataset.id)) && r.compareDocumentPosition(rowFor(ids[0])) & Node.DOCUMENT_POSITION_PRECEDING);
  ids.forEach((id) => selection.delete(String(id)));
  await refresh();
  (next && rowFor(next.dataset.id) || rows()[0])?.focus();
  announce(`Deleted ${what}.`);
}

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (form.id === 'add-form') {
    event.preventDefault();
    await addTrip(form);
  } else if (form.id === 'edit-form') {
    event.preventDefault();
    await saveEdit(form);
  } else if (form.id === 'sentence-form') {
    event.preventDefault();
    const sentence = form.elements.sentence.value;
    form.reset();
    await createFromText(sentence);
  } else if (form.id === 'token-form') {
    event.preventDefault();
    $('#token').hidden = true;
    tokenGiven?.(form.elements.token.value.trim());
    tokenGiven = null;
    form.reset();
  }
});

// MARK: - Buttons and keys

document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action]');
  if (!button) {
    const row = event.target.closest('#trips > li.trip');
    if (row && (event.ctrlKey || event.metaKey) && !event.target.closest('a')) toggleSelection(row);
    return;
  }
  const row = tripOf(button);
  switch (button.dataset.action) {
    case 'select': return toggleSelection(row);
    case 'favorite': return setFavorite(row, button.getAttribute('aria-pressed') !== 'true');
    case 'up': return moveByOne(row, -1);
    case 'down': return moveByOne(row, 1);
    case 'edit': return edit(row);
    case 'delete': return askToDelete([Number(row.dataset.id)]);
    case 'confirm-delete': return confirmDelete();
    case 'cancel-delete': $('#confirm').hidden = true; pendingDelete = null; return announce('Nothing was deleted.');
    case 'cancel-edit': $('#editor').hidden = true; return rowFor($('#edit-form').dataset.id)?.focus();
    case 'enlarge': return enlarge(button);
    case 'detach-photo': detachPhoto(); return announce('The photo was removed from the new trip.');
  }
});

/** From a focused row: arrows move focus, Alt+arrows move the trip (or the selection),
 *  Space selects, F drops on Favorites, E edits, Delete asks to delete, Enter opens. */
document.addEventListener('keydown', (event) => {
  const row = event.target;
  if (!(row instanceof HTMLLIElement) || !row.matches('#trips > li.trip')) return;
  const all = rows();
  const index = all.indexOf(row);
  const key = event.key;
  if ((key === 'ArrowUp' || key === 'ArrowDown') && event.altKey) moveByOne(row, key === 'ArrowUp' ? -1 : 1);
  else if (key === 'ArrowUp') all[Math.max(0, index - 1)].focus();
  else if (key === 'ArrowDown') focusBelow(row);
  else if (key === ' ') toggleSelection(row);
  else if (key === 'f' || key === 'F') makeFavorites({ json: sourcesFor(row) });
  else if (key === 'e' || key === 'E') edit(row);
  else if (key === 'Delete') askToDelete(sourcesFor(row));
  else if (key === 'Enter') location.href = $('a.city', row).href;
  else return;
  event.preventDefault();
});

// MARK: - Photo strip

/** The trip whose strip photo the viewer shows: focus goes back to that photo on close. */
let enlargedTrip = null;

/** Shows a strip photo large, with its city, in the viewer dialog (Escape closes it). */
function enlarge(button) {
  const photo = $('img', button);
  const viewer = $('#photo-viewer');
  const large = $('img', viewer);
  for (const name of ['src', 'width', 'height', 'alt']) large.setAttribute(name, photo.getAttribute(name));
  $('figcaption', viewer).textContent = photo.alt;
  enlargedTrip = button.dataset.id;
  viewer.showModal();
}

$('#photo-viewer')?.addEventListener('close', () => {
  // The photo's button may have been replaced by a refresh meanwhile: find it again.
  stripPhotoFor(enlargedTrip)?.focus();
  enlargedTrip = null;
});

// A click on the backdrop (outside the figure and its button) closes the viewer too.
$('#photo-viewer')?.addEventListener('click', (event) => {
  if (event.target === event.currentTarget) event.currentTarget.close();
});

// MARK: - Drag and drop

/** A trip dragged out offers, in order, its JSON, its sentence and its URL: the
 *  representations Transferable declares, then its photo. Several selected trips travel
 *  together; a strip photo drags as its trip. */
document.addEventListener('dragstart', (event) => {
  const element = event.target.closest?.('[data-id]');
  if (!element) return;
  const ids = element.matches('#trips > li') ? sourcesFor(element) : [Number(element.dataset.id)];
  // The rows hold the trips' JSON and sentences; the trip page's card holds its own.
  const elements = ids.map((id) => rowFor(id) ?? element);
  if (!elements.every((e) => e.dataset.json)) return;
  const trips = elements.map((e) => JSON.parse(e.dataset.json));
  const transfer = event.dataTransfer;
  transfer.setData('application/json', JSON.stringify(trips.length === 1 ? trips[0] : trips));
  transfer.setData('text/plain', elements.map((e) => $('.sentence', e).textContent).join('\n'));
  transfer.setData('text/uri-list', ids.map((id) => new URL(`/trips/${id}`, location.href).href).join('\r\n'));
  offerPhotos(transfer, trips);
  transfer.effectAllowed = 'copyMove';
  dragged = ids;
  elements.forEach((e) => e.classList.add('dragging'));
});

/**
 * Offers the dragged trips' photos after their representations, as far as browsers let a
 * page: a drag's data are strings (setData), so no page can hand another app an image's
 * bytes under an image/* type of its own. What does reach other apps:
 * - text/html with the photos as <img> (every browser): editors and mail show the photos;
 * - DownloadURL, "image/jpeg:Name.jpg:URL" (Chromium only; Firefox and Safari ignore it):
 *   dropped on the desktop or in a file manager, the photo is saved as a file of its type.
 *   It names one file, so it is offered when one trip is dragged.
 */
function offerPhotos(transfer, trips) {
  const withPhotos = trips.filter((trip) => trip.photo);
  if (withPhotos.length === 0) return;
  const absolute = (trip) => new URL(trip.photo.url, location.href).href;
  transfer.setData('text/html', withPhotos.map((trip) => {
    const image = document.createElement('img');
    Object.assign(image, { src: absolute(trip), alt: trip.city, width: trip.photo.width, height: trip.photo.height });
    return image.outerHTML; // escapes the city
  }).join(''));
  if (trips.length !== 1) return;
  const [trip] = withPhotos;
  // The colons separate DownloadURL's parts; a file name must not hold path characters.
  const fileName = `${trip.city.replace(/[\\/:*?"<>|]/g, '-')}.${trip.photo.url.split('.').pop()}`;
  transfer.setData('DownloadURL', `${trip.photo.type}:${fileName}:${absolute(trip)}`);
}

document.addEventListener('dragend', () => {
  dragged = null;
  clearDropMarks();
  document.querySelectorAll('.dragging').forEach((e) => e.classList.remove('dragging'));
});

/** A drag of files from the desktop (a drag that started here is never one). */
const carriesFiles = (event) => dragged === null && event.dataTransfer.types.includes('Files');

/** Where a drop would land: {favorites}, {before: id}, {end}, {photo: row} (files only), or
 *  null where nothing may drop. */
function dropTarget(event) {
  if (carriesFiles(event)) return fileDropTarget(event);
  if (event.target.closest?.('#favorites-chip')) return { favorites: true, element: $('#favorites-chip') };
  const fromHere = dragged !== null;
  if (!fromHere && !event.dataTransfer.types.includes('text/plain')) return null;
  if (fromHere && !isReorderable()) return null;
  const row = event.target.closest?.('#trips > li.trip');
  if (row) {
    const box = row.getBoundingClientRect();
    return placeBeforeLoaded(event.clientY > box.top + box.height / 2 ? row.nextElementSibling : row);
  }
  if (event.target.closest?.('#end-zone')) return placeBefore(null);
  return null;
}

/** Files land onto a row (its photo), or between two rows or at the end (a new trip there).
 *  A row's top and bottom edges, and the gap between rows, count as between. */
function fileDropTarget(event) {
  const row = event.target.closest?.('#trips > li.trip');
  if (row) {
    const box = row.getBoundingClientRect();
    const edge = Math.min(16, box.height / 4);
    if (event.clientY < box.top + edge) return placeBefore(row);
    if (event.clientY > box.bottom - edge) return placeBeforeLoaded(row.nextElementSibling);
    return { photo: row, element: row };
  }
  if (event.target.closest?.('#end-zone')) return placeBefore(null);
  if (event.target.matches?.('#trips')) return placeBeforeLoaded(rows().find((r) => r.getBoundingClientRect().top >= event.clientY) ?? null);
  return null;
}

/** In front of `row`, or at the end when there is none. */
const placeBefore = (row) => (row ? { before: Number(row.dataset.id), element: row } : { end: true, element: $('#end-zone') });

function clearDropMarks() {
  const marks = ['drop-before', 'drop-here', 'drop-photo'];
  document.querySelectorAll(marks.map((mark) => `.${mark}`).join()).forEach((e) => e.classList.remove(...marks));
}

document.addEventListener('dragover', (event) => {
  const target = dropTarget(event);
  clearDropMarks();
  if (!target) {
    // A file let fall anywhere else would replace the page with it: refuse the drop instead.
    if (carriesFiles(event)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = 'none';
    }
    return;
  }
  event.preventDefault();
  event.dataTransfer.dropEffect = dragged && !target.favorites ? 'move' : 'copy';
  target.element?.classList.add(target.before ? 'drop-before' : target.photo ? 'drop-photo' : 'drop-here');
});

document.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) clearDropMarks();
});

document.addEventListener('drop', (event) => {
  const target = dropTarget(event);
  clearDropMarks();
  if (!target) return;
  event.preventDefault();
  if (carriesFiles(event)) return dropFiles(event.dataTransfer.files, target);
  const ids = dragged;
  dragged = null;
  if (ids) return target.favorites ? makeFavorites({ json: ids }) : reorder(ids, target.before);
  const text = event.dataTransfer.getData('text/plain').trim();
  if (!text) return;
  if (target.favorites) return makeFavorites({ raw: text, type: 'text/plain' });
  return createFromText(text, target.before);
});

/** Image files from the desktop: onto a trip, its new photo; between two trips, a new trip's. */
function dropFiles(files, target) {
  const file = photoFile(files);
  if (!file) return;
  if (target.photo) return setPhoto(target.photo, file);
  return attachPhoto(file, target.before);
}

// MARK: - Long lists

// A long view comes a page at a time with a "Next page" link (#more). Nearing it appends the
// next page's rows; a refresh reloads as many rows as are loaded. The loaded rows are a run of
// the stored order, so "in front of trip X" and "the end" mean the same here as in the list.

/** The largest page the API serves (Pagination.limits). */
const LARGEST_PAGE = 1000;
const moreLink = () => $('#more a[rel="next"]');
const hasMore = () => moreLink() !== null;
/** The trip the loaded rows follow (a page opened with ?after=), or null. */
const pageStartsAfter = () => Number($('#trips')?.dataset.after) || null;
/** In front of `row`; below the last loaded row (no `row`), the end only when nothing more
 *  follows: the next trip is not known until its page loads. */
const placeBeforeLoaded = (row) => (row || !hasMore() ? placeBefore(row) : null);
const parseView = async (response) => new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('view');
const getPage = (url) => send('GET', url, { accept: 'text/html' });

/** `url` with its parameter `name` set to `value` (removed when null), the rest as the server
 *  wrote it (URLSearchParams would rewrite its escapes). */
function withParameter(url, name, value) {
  const [path, query = ''] = url.split('?', 2);
  const kept = query.split('&').filter((part) => part && part !== name && !part.startsWith(`${name}=`));
  if (value !== null) kept.push(`${name}=${value}`);
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

let loadingMore = null;

/** Appends the next page's rows, once however many ask; answers whether it did. */
function loadMore() {
  loadingMore ??= appendNextPage().finally(() => { loadingMore = null; });
  return loadingMore;
}

async function appendNextPage() {
  const shown = view();
  let response;
  try { response = await getPage(moreLink().getAttribute('href')); } catch { response = null; }
  // 422: the trip the next page follows was deleted or moved away: a refresh brings a new link.
  if (response?.status === 422) await refresh();
  else if (!response?.ok) announce(t('more.failed'));
  if (!response?.ok) return false;
  const next = await parseView(response);
  if (view() !== shown || !next) return false; // a refresh came meanwhile: its rows stand
  let added = 0;
  for (const row of next.querySelectorAll('#trips > li.trip')) {
    if (rowFor(row.dataset.id)) continue; // moved onto this page by a change: shown once
    $('#trips').append(document.adoptNode(row));
    added += 1;
  }
  const more = $('#more', next);
  if (more) $('#more').replaceWith(document.adoptNode(more));
  else $('#more').remove();
  showSelection();
  watchEnd();
  announce(tc('more.loaded', added));
  // A newer page: reload the rows loaded before it at its revision.
  if (Number(next.dataset.revision) > Number(shown.dataset.revision)) refresh();
  return true;
}

/** This page again with as many rows as are loaded: in pages of up to LARGEST_PAGE, all of
 *  one revision (else again, up to three times). Answers the last response and the #view. */
async function fetchLoadedView() {
  const here = location.pathname + location.search;
  const pageRows = Number($('#trips')?.dataset.limit) || 0;
  const loaded = rows().length;
  let response = await getPage(loaded <= pageRows ? here : withParameter(here, 'limit', Math.min(loaded, LARGEST_PAGE)));
  let fresh = response.ok ? await parseView(response) : null;
  if (loaded <= pageRows || !fresh) return { response, fresh };
  for (let attempt = 1; ; attempt += 1) {
    let wanted = loaded - $('#trips', fresh).children.length;
    let next = $('#more a', fresh)?.getAttribute('href');
    while (wanted > 0 && next) {
      response = await getPage(withParameter(next, 'limit', Math.min(wanted, LARGEST_PAGE)));
      if (!response.ok) return { response, fresh: null };
      const part = await parseView(response);
      if (part.dataset.revision !== fresh.dataset.revision) break;
      wanted -= $('#trips', part).children.length;
      $('#trips', fresh).append(...$('#trips', part).children);
      const more = $('#more', part);
      if (more) $('#more', fresh).replaceWith(more);
      else $('#more', fresh).remove();
      next = more && $('a', more).getAttribute('href');
    }
    if (wanted <= 0 || !next || attempt === 3) break;
    response = await getPage(withParameter(here, 'limit', Math.min(loaded, LARGEST_PAGE)));
    if (!response.ok) return { response, fresh: null };
    fresh = await parseView(response);
  }
  // Paged on as this page is: its own page size, in the list and in the next link.
  const more = $('#more a', fresh);
  const limit = new URLSearchParams(location.search).get('limit');
  more?.setAttribute('href', withParameter(more.getAttribute('href'), 'limit', limit));
  $('#trips', fresh).dataset.limit = String(pageRows);
  return { response, fresh };
}

/** The row at the top of the window and its height there, to keep it there after a refresh. */
function scrollAnchor() {
  const row = rows().find((r) => r.getBoundingClientRect().bottom > 0);
  return row && { id: row.dataset.id, top: row.getBoundingClientRect().top };
}

function restoreScroll(anchor) {
  const row = anchor && rowFor(anchor.id);
  if (row) window.scrollBy(0, row.getBoundingClientRect().top - anchor.top);
}

/** Focuses the row below `row`; below the last loaded one, the next page's first. */
async function focusBelow(row) {
  const id = row.dataset.id;
  if (rows().at(-1) === row && hasMore()) await loadMore();
  const all = rows();
  all[Math.min(all.length - 1, all.indexOf(rowFor(id)) + 1)]?.focus();
}

/** Loads the next page once its link is 600 px from showing. */
const endWatcher = window.IntersectionObserver && new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) loadMore();
}, { rootMargin: '0px 0px 600px 0px' });

/** Watches the current "Next page" link: a refresh or an append brings a new one. */
function watchEnd() {
  endWatcher?.disconnect();
  if ($('#more')) endWatcher?.observe($('#more'));
}

// "Next page" appends here, and focus goes to the first new row.
document.addEventListener('click', async (event) => {
  if (!event.target.closest?.('#more a') || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  const count = rows().length;
  if (await loadMore()) rows()[count]?.focus();
});

watchEnd();

// MARK: - Share

document.addEventListener('click', async (event) => {
  const button = event.target.closest('#share');
  if (!button) return;
  const { url, title, text } = button.dataset;
  if (navigator.share) {
    try { return await navigator.share({ title, text, url }); } catch (error) { if (error.name === 'AbortError') return; }
  }
  try {
    await navigator.clipboard.writeText(url);
    announce('Link copied.');
  } catch {
    announce(`Copy this link: ${url}`);
  }
});

// MARK: - Live

/** Follows /trips/changes from the revision the page shows; each newer change refreshes
 *  the page. A favorites change that added trips is celebrated, wherever it was made. */
function follow() {
  const source = new EventSource(`/trips/changes?since=${view().dataset.revision}`);
  const onChange = (event) => {
    const revision = Number(event.lastEventId);
    if (event.type === 'favorites' && JSON.parse(event.data).added.length > 0) celebrate(revision);
    if (revision > Number(view().dataset.revision)) refresh();
  };
  for (const kind of EVENT_KINDS) source.addEventListener(kind, onChange);
  source.addEventListener('error', () => {
    if (source.readyState !== EventSource.CLOSED) return; // the browser reconnects by itself
    // Closed: the history no longer reaches back to this page (410), or access was refused.
    refresh().then(() => setTimeout(follow, 1000));
  });
}

if (view()?.dataset.revision) follow();
