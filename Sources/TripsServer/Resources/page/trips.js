// Trips in a browser: drag and drop, keyboard actions and live updates, over the same
// HTTP API curl uses. The server renders every trip: after a change, and on every event
// of /trips/changes, this script fetches the page again and swaps #view
// (Sources/TripsServer/Page/TripsListPage.swift). Nothing here renders a trip.
'use strict';

document.documentElement.classList.add('js');

const EVENT_KINDS = ['created', 'updated', 'deleted', 'reordered', 'sorted', 'favorites'];
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
/** Joins cities as the language does: "New York and Zürich", "New York i Zürich". */
const LISTS = new Intl.ListFormat(LANGUAGE, { type: 'conjunction' });

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
const cityOf = (id) => $('.city', rowFor(id) ?? document)?.textContent ?? t('status.tripNumber', { id });
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

/** While the sign-in form is open: what every request that met a 401 waits on, and what
 *  lets them go again once the form has signed this browser in. */
let signingIn = null;
let resumeAfterSignIn = null;

/**
 * Sends a request to the API and answers its response. `json` is sent as JSON (or `raw`
 * with `type`); `ifMatch` makes the change conditional; `minimal` asks for the smallest
 * answer (`Prefer: return=minimal`: no list; a drop's `added` alone); `key` is its
 * Idempotency-Key; `onProgress` is told the fraction of the body sent. A 401 opens the
 * sign-in form and sends the request again, with
 * the same key and options, once it has signed in: the session cookie goes with every request
 * of this page, as with a navigation. Changes go through makeChange() (Offline), which gives
 * each a key and keeps it when offline.
 */
async function send(method, url, { json, raw, type, ifMatch, minimal, key, accept = 'application/json', onProgress } = {}) {
  for (;;) {
    const headers = { Accept: accept };
    if (minimal) headers.Prefer = 'return=minimal';
    if (key) headers['Idempotency-Key'] = key;
    if (ifMatch) headers['If-Match'] = ifMatch;
    let body;
    if (json !== undefined) [body, headers['Content-Type']] = [JSON.stringify(json), 'application/json'];
    if (raw !== undefined) [body, headers['Content-Type']] = [raw, type];
    const response = onProgress
      ? await sendWithProgress(method, url, headers, body, onProgress)
      : await fetch(url, { method, headers, body, cache: 'no-store' });
    if (response.status !== 401 || !$('#sign-in')) return response;
    await signIn();
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

// MARK: - Signing in and out

/** Opens the sign-in form (once, however many requests wait) and waits until it signs in. */
function signIn() {
  signingIn ??= new Promise((resolve) => {
    resumeAfterSignIn = resolve;
    const panel = $('#sign-in');
    panel.hidden = false;
    $('input[name="token"]', panel).focus();
    announce(t('signin.needed'));
  });
  return signingIn;
}

/** Posts the form's token to /session, which sets the session cookie, and lets the waiting
 *  requests go again; a wrong token keeps the form open. */
async function submitSignIn(form) {
  const response = await fetch('/session', {
    method: 'POST', headers: { Accept: 'application/json' }, cache: 'no-store',
    body: new URLSearchParams({ token: form.elements.token.value.trim() }),
  });
  if (response.status !== 204) {
    announce(response.status === 401 ? t('signin.invalid') : await problemOf(response));
    form.elements.token.select();
    return;
  }
  form.reset();
  $('#sign-in').hidden = true;
  $('#sign-out').hidden = false;
  announce(t('signin.done'));
  const resume = resumeAfterSignIn;
  [signingIn, resumeAfterSignIn] = [null, null];
  resume();
}

/** Shows "Sign out" when this browser is signed in (the cookie is HttpOnly: only the server
 *  can tell). */
async function offerSignOut() {
  const button = $('#sign-out');
  if (!button?.hidden) return;
  const response = await fetch('/session', { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (response.ok && (await response.json()).signedIn) button.hidden = false;
}

offerSignOut().catch(() => { /* the server cannot be reached: the next page asks again */ });

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
  announce(t('status.stale'));
}

// MARK: - Showing the list

let refreshing = null;
let refreshAgain = false;

/** Fetches this page again and swaps #view, keeping focus and selection (offline, the page
 *  stays as it is); calls that come while one runs are folded into one more. */
function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      // Long lists: as many rows as the reader has loaded, maybe several pages' worth.
      let response, fresh;
      try {
        ({ response, fresh } = await fetchLoadedView());
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        break; // offline: the page keeps showing what it showed (see Offline)
      }
      if (response.status === 404) {
        announce(t('status.tripGone'));
        break;
      }
      if (!response.ok || !fresh) break;
      const focused = document.activeElement;
      const focusedTrip = focused && tripOf(focused)?.dataset.id;
      const focusedAction = focused?.dataset?.action;
      const anchor = scrollAnchor();
      // An open menu leaves with its row, and opens again in the row that replaces it.
      const menuTrip = menuRow()?.dataset.id;
      closeMenu();
      view().replaceWith(document.adoptNode(fresh));
      restoreScroll(anchor); // the same row at the same height, though rows above changed
      watchEnd(); // the new view's "Next page" link
      showSelection();
      const menuButton = menuTrip && menuButtonOf(rowFor(menuTrip));
      if (menuButton) openMenu(menuButton, { focus: null });
      showWaiting();
      if (Date.now() < celebratingUntil) $('#favorites-chip')?.classList.add('celebrate');
      if (focusedAction === 'enlarge') {
        (stripPhotoFor(focusedTrip) ?? rowFor(focusedTrip))?.focus();
      } else if (focusedTrip) {
        const row = rowFor(focusedTrip);
        (focusedAction && row && $(`[data-action="${focusedAction}"]`, row) || row)?.focus();
      } else if (focusedAction) {
        $(`[data-action="${focusedAction}"]`, view())?.focus(); // a trip page's action
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
  }
}

function toggleSelection(row) {
  const id = row.dataset.id;
  if (!selection.delete(id)) selection.add(id);
  showSelection();
  announce(tc('status.selected', selection.size));
}

/** The trips an action on `row` applies to: the selection when the row is in it. */
function sourcesFor(row) {
  if (!selection.has(row.dataset.id)) return [Number(row.dataset.id)];
  return rows().filter((r) => selection.has(r.dataset.id)).map((r) => Number(r.dataset.id));
}

/** Says `message` in the status line, followed by how many changes wait to be sent, if any. */
function announce(message) {
  const status = $('#status');
  const text = [message, waitingNote()].filter(Boolean).join(' ');
  status.textContent = '';
  requestAnimationFrame(() => { status.textContent = text; });
}

/** The trips `ids` in words: their cities when one or two, or how many they are. */
function names(ids) {
  const cities = ids.map(cityOf);
  return cities.length <= 2 ? LISTS.format(cities) : tc('list.count', cities.length);
}

// MARK: - Changes

/** Moves `ids` in front of trip `before`, or to the end: the reorder difference. */
async function reorder(ids, before) {
  const what = names(ids);
  const moved = before ? t('status.moved.before', { names: what, city: cityOf(before) }) : t('status.moved.end', { names: what });
  const destination = before ? { before } : 'end';
  const order = await loadedOrder(ids);
  // The page fetches itself again after a change, so it asks for no list in the answer.
  const request = { json: { sources: ids, destination }, ifMatch: view().dataset.etag, minimal: true };
  const change = t('offline.change.move', { trips: what });
  const response = await makeChange('PATCH', '/trips', request, { what: change, ids });
  if (!(response instanceof Response)) return;
  if (!response.ok) return complain(response);
  await refresh();
  announce(moved);
  const after = response.headers.get('ETag');
  offerUndo(change, () => moveBack(ids, order, after));
}

/** If-Match for a change that overwrites no version the page read (an add, a favorite drop):
 *  any version, so a server run with --require-if-match, which takes no change without
 *  If-Match (428), takes these too. */
const ANY_VERSION = '*';

/** A drop on the Favorites chip: the server answers which trips newly became favorites (and
 *  not every favorite: the page reads them again with the list). */
async function makeFavorites(request) {
  request.ifMatch = ANY_VERSION;
  request.minimal = true;
  const trips = request.json ? names(request.json) : firstLine(request.raw);
  const response = await makeChange('POST', '/favorites', request, { what: t('offline.change.favorite', { trips }), ids: request.json });
  if (!(response instanceof Response)) return;
  if (!response.ok) return complain(response);
  const { added } = await response.json();
  const revision = Number(response.headers.get('Trips-Revision'));
  selection.clear();
  await refresh();
  if (added.length > 0) celebrate(revision);
  announce(added.length > 0 ? t('status.favorites.added', { names: names(added) }) : t('status.favorites.already'));
  if (added.length === 0) return;
  // Each trip's tag as the drop left it: the undo is one change per trip.
  const tags = tripTagsAt(added, revision);
  offerUndo(t('offline.change.favorite', { trips: names(added) }), () => unfavorite(added, tags));
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
  const what = t('offline.change.add', { trips: firstLine(text) });
  const response = await makeChange('POST', url, { raw: text, type: 'text/plain', ifMatch: ANY_VERSION }, { what });
  if (!(response instanceof Response)) return;
  if (!response.ok) return complain(response);
  const created = await response.json();
  await refresh();
  const count = Array.isArray(created) ? created.length : 1;
  announce(count === 1 ? t('status.added', { city: created.city ?? created[0].city }) : tc('status.addedCount', count));
}

async function setFavorite(row, isFavorite) {
  const method = isFavorite ? 'PUT' : 'DELETE';
  const city = cityOf(row.dataset.id);
  const what = t(isFavorite ? 'offline.change.favorite' : 'offline.change.unfavorite', { trips: city });
  const ids = [Number(row.dataset.id)];
  const response = await makeChange(method, `/favorites/${row.dataset.id}`, { ifMatch: row.dataset.etag }, { what, ids });
  if (!(response instanceof Response)) return;
  if (!response.ok) return complain(response);
  await refresh();
  announce(isFavorite ? t('status.favorite.on', { city }) : t('status.favorite.off', { city }));
}

/** Move up or down by one place: in front of the trip before the block, or past the next. */
function moveByOne(row, step) {
  if (!isReorderable()) return announce(t('status.reorderOff'));
  const ids = sourcesFor(row);
  const all = rows().map((r) => Number(r.dataset.id));
  const first = all.indexOf(ids[0]);
  const last = all.indexOf(ids[ids.length - 1]);
  if (step < 0) {
    const previous = first > 0 ? all[first - 1] : pageStartsAfter();
    if (!previous) return announce(t('status.atTop', { names: names(ids) }));
    return reorder(ids, previous);
  }
  // The trip to land in front of is not loaded yet: load the next page, then move.
  if (last + 2 >= all.length && hasMore()) return loadMore().then((loaded) => loaded && moveByOne(rowFor(row.dataset.id) ?? row, step));
  if (last >= all.length - 1) return announce(t('status.atEnd', { names: names(ids) }));
  return reorder(ids, all[last + 2]);
}

// MARK: - Photos

/** The one photo in a drop of files, or null after saying why there is none to send. */
function photoFile(files) {
  if (files.length !== 1) {
    announce(t('status.photo.oneAtATime'));
    return null;
  }
  const [file] = files;
  if (!PHOTO_TYPES.includes(file.type)) {
    announce(t('status.photo.notPhoto', { file: file.name }));
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
    announce(t('status.photo.sending', { city }));
  }
  try {
    const onProgress = (fraction) => { progress.value = fraction; };
    return await send('PUT', `/trips/${id}/photo`, { raw: file, type: file.type, ifMatch, onProgress });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    announce(t('offline.photo', { city }));
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
  announce(t('status.photo.set', { city }));
}

/** A photo dropped between two trips (or at the end), waiting in the add form for the trip
 *  it will belong to: {file, before}, before undefined for the end. */
let attachedPhoto = null;

/** Opens the add form for a trip at the drop's place, the photo shown in it. */
function attachPhoto(file, before) {
  detachPhoto();
  attachedPhoto = { file, before };
  const where = { file: file.name, city: before && cityOf(before) };
  const figure = $('#add-photo');
  $('img', figure).src = URL.createObjectURL(file);
  $('#add-photo-where').textContent = before ? t('form.photo.where.before', where) : t('form.photo.where.end', where);
  figure.hidden = false;
  $('#add-form').elements.city.focus();
  announce(before ? t('status.photo.attached.before', where) : t('status.photo.attached.end', where));
}

function detachPhoto() {
  if (!attachedPhoto) return;
  attachedPhoto = null;
  const figure = $('#add-photo');
  URL.revokeObjectURL($('img', figure).src);
  $('img', figure).removeAttribute('src');
  figure.hidden = true;
}

// MARK: - Forms: add, edit, delete

/** JSON for a draft, with the price written exactly as typed (a decimal, not a float). */
function draftBody(form) {
  const data = new FormData(form);
  const price = String(data.get('price') ?? '0').trim();
  if (!/^\d+(\.\d+)?$/.test(price)) throw new Error(t('status.priceFormat'));
  const draft = {
    city: data.get('city'), country: data.get('country'), nights: Number(data.get('nights')),
    start: data.get('start'), notes: data.get('notes') ?? '',
  };
  if (form.elements.isFavorite) draft.isFavorite = form.elements.isFavorite.checked;
  return `${JSON.stringify(draft).slice(0, -1)},"price":${price}}`;
}

/** Sends the form's draft (`about`: see makeChange); answers the trip, KEPT when it waits to be
 *  sent, or null after saying what went wrong. */
async function submitDraft(form, method, url, type, ifMatch, about) {
  let body;
  try { body = draftBody(form); } catch (error) {
    announce(error.message);
    return null;
  }
  const response = await makeChange(method, url, { raw: body, type, ifMatch }, about);
  if (!(response instanceof Response)) return response;
  if (response.ok) return response.json();
  await complain(response);
  return null;
}

/** Adds the form's trip: where its attached photo was dropped, then with that photo. */
async function addTrip(form) {
  const photo = attachedPhoto;
  const url = photo?.before ? `/trips?before=${photo.before}` : '/trips';
  const city = form.elements.city.value;
  // A photo is never kept offline, so neither is the trip it comes with: both wait in the form.
  const unkept = photo && t('offline.photo', { city });
  if (unkept && navigator.onLine === false) return announce(unkept);
  const trip = await submitDraft(form, 'POST', url, 'application/json', ANY_VERSION, { what: t('offline.change.add', { trips: city }), unkept });
  if (!trip) return;
  form.reset();
  detachPhoto();
  if (trip === KEPT) return;
  if (!photo) {
    announce(t('status.added', { city: trip.city }));
    return refresh();
  }
  const response = await sendPhoto(trip.id, photo.file, trip.city);
  await refresh();
  if (!response) return;
  const added = { city: trip.city };
  announce(response.ok ? t('status.addedWithPhoto', added) : t('status.addedWithoutPhoto', { ...added, reason: await problemOf(response) }));
}

/** Focus back where an edit or a delete of trip `id` began: its row, or on the trip page the
 *  button (`action`) that began it. */
const focusBack = (id, action) => (rowFor(id) ?? $(`[data-action="${action}"]`, view()))?.focus();

/** PATCHes what the editor changed (merge-patch, If-Match: the trip as the page showed it);
 *  without a connection the change waits (makeChange). The list page and the trip page share
 *  the editor (EditorPanel.swift). */
async function saveEdit(form) {
  const id = form.dataset.id;
  const about = { what: t('offline.change.edit', { trips: cityOf(id) }), ids: [Number(id)] };
  const trip = await submitDraft(form, 'PATCH', `/trips/${id}`, 'application/merge-patch+json', form.dataset.etag, about);
  if (trip) $('#editor').hidden = true;
  if (trip && trip !== KEPT) {
    announce(t('status.saved', { city: trip.city }));
    await refresh();
  }
  focusBack(id, 'detail-edit');
}

/** The price in a trip's JSON text as the server wrote it: JSON.parse would round a long
 *  decimal to a double. (Inside a string, a quote is escaped, so only the member matches.) */
const exactPrice = (json) => json.match(/"price":([0-9.eE+-]+)/)?.[1];

/**
 * The JSON of the trip `element` (a row, or the trip page's card) shows, as the API writes it:
 * its id, its city and whether it is a favorite, which the element shows, and data-trip, the
 * other members, where the server leaves out an empty image name, empty notes and no photo (a
 * long list's 200 rows do not carry what the page has already). Text: the price keeps its
 * digits. Null when the element carries no trip.
 */
function tripJSON(element) {
  const rest = element?.dataset.trip;
  if (!rest) return null;
  const { country, nights, imageName = '', start, notes = '', photo = null } = JSON.parse(rest);
  const text = JSON.stringify;
  return `{"id":${Number(element.dataset.id)},"city":${text($('.city', element).textContent)},"country":${text(country)},`
    + `"nights":${nights},"isFavorite":${element.classList.contains('is-favorite')},"imageName":${text(imageName)},`
    + `"price":${exactPrice(rest)},"start":${text(start)},"notes":${text(notes)},"photo":${text(photo)}}`;
}

/** Fills a draft form with the trip `element` shows, and keeps the trip's id and the tag its
 *  change sends as If-Match. */
function fillDraft(form, element) {
  const json = tripJSON(element);
  const trip = JSON.parse(json);
  for (const name of ['city', 'country', 'nights', 'notes']) form.elements[name].value = trip[name];
  form.elements.start.value = trip.start.slice(0, 10);
  form.elements.price.value = exactPrice(json);
  form.dataset.id = element.dataset.id;
  form.dataset.etag = element.dataset.etag;
}

/** Opens the editor on the trip `element` (a row, or the trip page's card) shows. */
function edit(element) {
  const form = $('#edit-form');
  fillDraft(form, element);
  $('#editor').hidden = false;
  form.elements.city.focus();
}

let pendingDelete = null;

function askToDelete(ids) {
  pendingDelete = ids;
  $('#confirm-title').textContent = t('confirm.titleNamed', { names: names(ids) });
  $('#confirm').hidden = false;
  $('[data-action="confirm-delete"]').focus();
}

/** The confirmation (ConfirmPanel.swift) said no: nothing is deleted, and focus goes back. */
function cancelDelete() {
  const ids = pendingDelete;
  $('#confirm').hidden = true;
  pendingDelete = null;
  if (ids) focusBack(ids[0], 'detail-delete');
  announce(t('status.nothingDeleted'));
}

async function confirmDelete() {
  const ids = pendingDelete;
  $('#confirm').hidden = true;
  pendingDelete = null;
  if (!ids) return;
  if (view() && tripCard()) return deleteOnPage(ids[0]);
  const what = names(ids);
  const change = t('offline.change.delete', { trips: what });
  // The row that takes the focus, found while the deleted rows are still there: the change
  // feed may take them away before the answer comes.
  const first = rowFor(ids[0]);
  const next = first && rows().find((r) => !ids.includes(Number(r.dataset.id)) && r.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_PRECEDING);
  const places = await placesOf(ids);
  const response = ids.length === 1
    ? await makeChange('DELETE', `/trips/${ids[0]}`, { ifMatch: first?.dataset.etag }, { what: change, ids })
    : await makeChange('DELETE', `/trips?ids=${ids.join(',')}`, { ifMatch: view().dataset.etag }, { what: change, ids });
  if (!(response instanceof Response)) return;
  if (!response.ok) return complain(response);
  ids.forEach((id) => selection.delete(String(id)));
  await refresh();
  (next && rowFor(next.dataset.id) || rows()[0])?.focus();
  announce(t('status.deleted', { names: what }));
  const after = listTagAt(Number(response.headers.get('Trips-Revision')));
  if (places) offerUndo(change, () => bringBack(places, after));
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
  } else if (form.id === 'sign-in-form' && signingIn) {
    // Without a request waiting (the page to sign in at), the form posts itself and comes back.
    event.preventDefault();
    await submitSignIn(form);
  } else if (form.id === 'sign-out') {
    // Signed out, the browser comes back to this page (or, with --private, to the form).
    form.elements.next.value = location.pathname + location.search;
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
  // A menu's item acts on the row the menu is in, after the menu closes.
  if (rowMenu?.contains(button)) closeMenu({ returnFocus: true });
  switch (button.dataset.action) {
    case 'menu': return menuRow() === row ? closeMenu({ returnFocus: true }) : openMenu(button);
    case 'select': return toggleSelection(row);
    case 'favorite': return setFavorite(row, !row.classList.contains('is-favorite'));
    case 'up': return moveByOne(row, -1);
    case 'down': return moveByOne(row, 1);
    case 'edit': return edit(row);
    case 'delete': return askToDelete([Number(row.dataset.id)]);
    case 'confirm-delete': return confirmDelete();
    case 'cancel-delete': return cancelDelete();
    case 'cancel-edit': $('#editor').hidden = true; return focusBack($('#edit-form').dataset.id, 'detail-edit');
    case 'enlarge': return enlarge(button);
    case 'detach-photo': detachPhoto(); return announce(t('status.photo.removed'));
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

// MARK: - Row menu

/** The one menu of a row's actions (RowMenu.swift): the script moves it into the row whose
 *  button opens it, so its items act on that row as any [data-action] button does. It
 *  follows the WAI-ARIA menu button pattern: Enter, Space or ArrowDown on the button open it
 *  on its first item (ArrowUp on its last), arrows move, Escape closes it back onto its
 *  button, and Tab, a click or focus elsewhere close it. */
const rowMenu = $('#row-menu');
const menuButtonOf = (row) => row && $('[data-action="menu"]', row);
const menuItems = () => [...rowMenu.querySelectorAll('[role="menuitem"]')].filter((item) => !item.hidden);
/** The row whose menu is open, or null. */
const menuRow = () => (rowMenu && !rowMenu.hidden ? tripOf(rowMenu) : null);

/** Opens the menu under `button`, its items named for that row; focuses its `focus` item
 *  ('first', 'last', or null: none). */
function openMenu(button, { focus = 'first' } = {}) {
  const row = tripOf(button);
  closeMenu();
  $('[data-action="select"]', rowMenu).textContent = t(selection.has(row.dataset.id) ? 'row.deselect' : 'row.select');
  $('[data-action="favorite"]', rowMenu).textContent = t(row.classList.contains('is-favorite') ? 'row.unfavorite' : 'row.favorite');
  for (const item of rowMenu.querySelectorAll('[data-action="up"], [data-action="down"]')) item.hidden = !isReorderable();
  rowMenu.setAttribute('aria-label', button.getAttribute('aria-label'));
  button.after(rowMenu);
  rowMenu.hidden = false;
  button.setAttribute('aria-expanded', 'true');
  button.setAttribute('aria-controls', rowMenu.id);
  const items = menuItems();
  if (focus) items[focus === 'last' ? items.length - 1 : 0].focus();
}

/** Closes the menu, if open, and takes it out of its row (a refresh replaces rows); with
 *  `returnFocus`, focus goes back to its button. */
function closeMenu({ returnFocus = false } = {}) {
  const button = menuButtonOf(menuRow());
  if (!button) return;
  rowMenu.hidden = true;
  document.body.append(rowMenu);
  button.setAttribute('aria-expanded', 'false');
  button.removeAttribute('aria-controls');
  if (returnFocus) button.focus();
}

document.addEventListener('keydown', (event) => {
  const target = event.target;
  if (!rowMenu || !(target instanceof HTMLButtonElement)) return;
  if (target.dataset.action === 'menu') {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    openMenu(target, { focus: event.key === 'ArrowUp' ? 'last' : 'first' });
    return event.preventDefault();
  }
  if (!rowMenu.contains(target)) return;
  const items = menuItems();
  const index = items.indexOf(target);
  const key = event.key;
  if (key === 'ArrowDown') items[(index + 1) % items.length].focus();
  else if (key === 'ArrowUp') items[(index - 1 + items.length) % items.length].focus();
  else if (key === 'Home') items[0].focus();
  else if (key === 'End') items[items.length - 1].focus();
  else if (key === 'Escape') closeMenu({ returnFocus: true });
  else if (key === 'Tab') return closeMenu({ returnFocus: true }); // then Tab moves on from the button
  else return;
  event.preventDefault();
});

// A press anywhere but the menu and its button closes it; so does focus moving elsewhere.
document.addEventListener('pointerdown', (event) => {
  const button = menuButtonOf(menuRow());
  if (button && !rowMenu.contains(event.target) && !button.contains(event.target)) closeMenu();
});
document.addEventListener('focusin', (event) => {
  const button = menuButtonOf(menuRow());
  if (button && !rowMenu.contains(event.target) && event.target !== button) closeMenu();
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
  const jsons = elements.map(tripJSON);
  if (!jsons.every(Boolean)) return;
  const trips = jsons.map((json) => JSON.parse(json));
  const transfer = event.dataTransfer;
  transfer.setData('application/json', jsons.length === 1 ? jsons[0] : `[${jsons.join(',')}]`);
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
  appendStripPhotos(next, shown);
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

/** Adds the strip photos of `part` (a later page's #view) to the strip of `into`: the strip
 *  shows the photos of the loaded rows, in their order, as each page's shows its own. */
function appendStripPhotos(part, into) {
  const photos = $('.strip-photos', part);
  if (!photos) return;
  const strip = $('.strip-photos', into);
  if (!strip) return $('#trip-summary', into)?.before(document.adoptNode(photos.closest('section')));
  const shown = (item) => $(`.strip-photo[data-id="${$('.strip-photo', item).dataset.id}"]`, strip);
  strip.append(...[...photos.children].filter((item) => !shown(item)).map((item) => document.adoptNode(item)));
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
      appendStripPhotos(part, fresh);
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

/** The loaded rows' ids, in the stored order a reorder needs; when `ids` take the last loaded
 *  row and more follow, then the trip after it too, which an undo puts them back in front of. */
async function loadedOrder(ids) {
  const order = rows().map((row) => Number(row.dataset.id));
  if (!hasMore() || !ids.includes(order.at(-1))) return order;
  try {
    const response = await send('GET', `/trips?after=${order.at(-1)}&limit=1`);
    if (response.ok) order.push(...(await response.json()).map((trip) => trip.id));
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // offline: the move waits, and has no undo
  }
  return order;
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
    announce(t('status.linkCopied'));
  } catch {
    announce(t('status.copyLink', { url }));
  }
});

// MARK: - The trip page

// The lesson's TripDetail (Sources/TripsServer/Page/TripPage.swift): the card, and Edit
// inline, Favorite and Delete behind a confirmation, each a request; after a change the page
// refreshes #view as the list does. A delete goes back to the list.

/** The trip page's card: its id, JSON and the tag a change of the trip sends. */
const tripCard = () => $('article.trip-card', view());

/** Deletes trip `id`, shown by this page, then goes back to the list. The change feed tells of
 *  the delete too, maybe before its answer, and the page would fetch itself again (a 404) as it
 *  leaves: it stops following meanwhile, and follows again from where it was if it stays (the
 *  delete was refused, or waits for the connection: makeChange). */
async function deleteOnPage(id) {
  const about = { what: t('offline.change.delete', { trips: cityOf(id) }), ids: [id] };
  stopFollowing();
  const response = await makeChange('DELETE', `/trips/${id}`, { ifMatch: tripCard().dataset.etag }, about);
  if (response?.ok) return location.assign('/trips');
  follow();
  if (response instanceof Response) return complain(response);
}

// The toolbar's buttons. The editor and the confirmation are the list page's (Forms: add, edit, delete).
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action^="detail-"]');
  switch (button?.dataset.action) {
    case 'detail-edit': return edit(tripCard());
    case 'detail-favorite': return setFavorite(tripCard(), button.getAttribute('aria-pressed') !== 'true');
    case 'detail-delete': return askToDelete([Number(tripCard().dataset.id)]);
  }
});

// MARK: - Offline

/*
 * A change made while the server cannot be reached (fetch fails, or the browser says it is
 * offline) waits in localStorage, so a reload keeps it, and is sent when the connection is
 * back (the `online` event, and tries that back off meanwhile), strictly in the order made, one
 * at a time. Each keeps the Idempotency-Key it was made with, so one that reached the server
 * before the connection broke is not made twice, and the If-Match it was made with, so one made
 * on a list someone else changed since is refused (412) and reported, never applied blindly.
 * A change the server refuses is reported with its problem detail and dropped; the rest go on.
 * One that meets a 401 is not refused: it waits until this browser signs in (send()), then goes
 * with the same key.
 *
 * The page cannot show what a waiting change will do: the server renders every trip. So it
 * shows the list as the server last answered it, marks the trips a waiting change names
 * "waiting", and the status line counts the waiting changes. Photos are not kept: they are
 * large, and the browser's storage is small.
 */

/** Where the waiting changes are kept: every tab of this origin shares them. */
const OUTBOX = 'trips-waiting-changes';
/** At most this many waiting changes, of at most this many bytes together: past either, a change is refused. */
const OUTBOX_LIMITS = { changes: 100, bytes: 1024 * 1024 };
/** Answers that mean "not now" rather than "no": the change waits for the next try. 409: the
 *  first request with its key is still being made; 502 to 504: a proxy without its server. */
const NOT_NOW = [409, 502, 503, 504];
/** What makeChange() answers for a change that waits to be sent. */
const KEPT = Symbol('kept');
/** The page's clock: timers looked up when used, so Playwright's page.clock can stand in for them. */
const clock = { later: (ms, run) => setTimeout(run, ms), cancel: (timer) => clearTimeout(timer) };

/**
 * Makes a change (any request but a read) with send(), under an Idempotency-Key of its own.
 * When the server cannot be reached, or changes wait already (they go first), the change waits
 * instead. `about`: `what`, the change in the page's words; `ids`, the trips it names; `unkept`,
 * what to say instead when it must not wait. Answers the response; KEPT when the change waits;
 * null when it could not (after saying why).
 */
async function makeChange(method, url, { json, raw, type, ifMatch, minimal }, { what, ids = [], unkept } = {}) {
  withdrawUndo();
  const change = { key: idempotencyKey(), method, url, json, raw, type, ifMatch, minimal, what, ids };
  if (navigator.onLine !== false && waitingChanges().length === 0) {
    try {
      return await send(method, url, { json, raw, type, ifMatch, minimal, key: change.key });
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // fetch's way of saying "no connection"
    }
  }
  if (unkept) {
    announce(unkept);
    return null;
  }
  // What a later If-Match needs (rolledForward): the list the page showed, and whose tag it sent.
  change.revision = view()?.dataset.revision ? Number(view().dataset.revision) : null;
  change.validator = !ifMatch || ifMatch === ANY_VERSION ? null : ifMatch === view()?.dataset.etag ? '/trips?limit=1' : ids.length === 1 ? `/trips/${ids[0]}` : null;
  if (!storeWaiting([...waitingChanges(), change])) {
    announce(t('offline.full', { count: NUMBERS.format(OUTBOX_LIMITS.changes) }));
    return null;
  }
  showWaiting();
  announce(t('offline.kept', { change: what }));
  if (navigator.onLine !== false && !retryTimer) sendWaiting();
  return KEPT;
}

/** A new random key (a version 4 UUID). crypto.randomUUID() exists only in a secure context
 *  (HTTPS, or localhost): a page served over plain HTTP on a network makes its own. */
function idempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The waiting changes, oldest first; none when the storage holds anything else. */
function waitingChanges() {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(OUTBOX) ?? '[]');
  } catch {
    return []; // unreadable, or no storage at all: nothing can wait
  }
  const isChange = (c) => typeof c?.key === 'string' && typeof c.method === 'string' && typeof c.url === 'string' && c.url.startsWith('/');
  return Array.isArray(kept) ? kept.filter(isChange) : [];
}

/** Keeps `changes` as the waiting ones; false when they are over the limits or the browser's quota. */
function storeWaiting(changes) {
  const text = JSON.stringify(changes);
  if (changes.length > OUTBOX_LIMITS.changes || new TextEncoder().encode(text).length > OUTBOX_LIMITS.bytes) return false;
  try {
    if (changes.length === 0) localStorage.removeItem(OUTBOX);
    else localStorage.setItem(OUTBOX, text);
    return true;
  } catch {
    return false; // QuotaExceededError, or storage turned off
  }
}

/** "2 changes waiting to be sent.", or nothing. */
function waitingNote() {
  const count = waitingChanges().length;
  return count > 0 ? tc('offline.waiting', count) : '';
}

/** Marks the rows (or the trip page's card) of the trips waiting changes name. */
function showWaiting() {
  const named = new Set(waitingChanges().flatMap((change) => (Array.isArray(change.ids) ? change.ids.map(String) : [])));
  const card = view() && tripCard(); // the trip page's
  for (const row of card ? [...rows(), card] : rows()) {
    const isWaiting = named.has(row.dataset.id);
    row.classList.toggle('is-waiting', isWaiting);
    const note = $('.waiting-note', row);
    if (!isWaiting) note?.remove();
    else if (!note) {
      const added = document.createElement('span');
      added.className = 'waiting-note';
      added.textContent = t('offline.row');
      $('.city', row)?.after(added);
    }
  }
}

let retryDelay = 0;
let retryTimer = null;

/** Tries the waiting changes again after a delay that doubles with each try, from 1 s to a minute. */
function retryLater() {
  retryDelay = Math.min(Math.max(2 * retryDelay, 1000), 60_000);
  clock.cancel(retryTimer);
  retryTimer = clock.later(retryDelay, () => {
    retryTimer = null;
    sendWaiting();
  });
}

let sending = null;

/** Sends the waiting changes, one tab at a time (a Web Lock), one change at a time. */
function sendWaiting() {
  if (!sending && waitingChanges().length > 0) {
    const run = () => sendWaitingNow();
    sending = (navigator.locks ? navigator.locks.request(OUTBOX, run) : run()).finally(() => { sending = null; });
  }
  return sending;
}

/** Sends the waiting changes oldest first until none is left, or until one cannot reach the
 *  server (then tries again later); then says what was sent and what the server refused. */
async function sendWaitingNow() {
  // The list revisions these changes made: each one past the newest known, so a change that
  // changed nothing (and answers the list's revision as it was) never counts another's as its own.
  const own = new Set();
  let known = -1; // none yet
  let sent = 0;
  const report = [];
  try {
    for (let change = waitingChanges()[0]; change; change = waitingChanges()[0]) {
      const { method, url, json, raw, type, minimal, key } = change;
      const ifMatch = await rolledForward(change, own);
      const response = await send(method, url, { json, raw, type, minimal, ifMatch, key });
      if (NOT_NOW.includes(response.status)) return retryLater();
      // Not signed in, on the page to sign in at (elsewhere send() waited for the sign-in form):
      // the changes wait for the page it goes back to, signed in.
      if (response.status === 401) return;
      // Not forgotten (the storage refused): it goes again later, and its key keeps it from being made twice.
      if (!storeWaiting(waitingChanges().filter((waiting) => waiting.key !== key))) return retryLater();
      if (!response.ok) {
        report.push(t('offline.refused', { change: change.what ?? `${method} ${url}`, problem: await problemOf(response) }));
        continue;
      }
      sent += 1;
      const made = Number(response.headers.get('Trips-Revision') ?? NaN);
      if (Number.isInteger(change.revision)) known = Math.max(known, change.revision);
      if (known >= 0 && made === known + 1) own.add(made);
      if (Number.isInteger(made)) known = Math.max(known, made);
    }
    retryDelay = 0;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    retryLater(); // the connection is gone again
  } finally {
    showWaiting();
    if (sent > 0 || report.length > 0) {
      await refresh();
      announce([sent > 0 ? tc('offline.sent', sent) : '', ...report].filter(Boolean).join(' '));
    }
  }
}

/**
 * The If-Match for a waiting change: the tag it was made with, unless every change the list saw
 * since was one of the waiting changes just sent before it (the page could not show them, so it
 * was made on top of them): then the same resource's tag as it is now. After any other change
 * in between, the old tag goes, and the server refuses it (412).
 */
async function rolledForward(change, own) {
  const { ifMatch, validator, revision } = change;
  if (!ifMatch || !validator || own.size === 0 || !Number.isInteger(revision)) return ifMatch;
  const list = await send('HEAD', '/trips?limit=1');
  const now = Number(list.headers.get('Trips-Revision'));
  if (!list.ok || !(now > revision) || now - revision > own.size) return ifMatch;
  for (let seen = revision + 1; seen <= now; seen += 1) if (!own.has(seen)) return ifMatch;
  const current = validator === '/trips?limit=1' ? list : await send('HEAD', validator);
  return (current.ok && current.headers.get('ETag')) || ifMatch;
}

window.addEventListener('online', () => {
  retryDelay = 0;
  clock.cancel(retryTimer);
  retryTimer = null;
  sendWaiting();
});

// Another tab kept or sent changes: the marks and the count follow.
window.addEventListener('storage', (event) => {
  if (event.key !== OUTBOX && event.key !== null) return;
  showWaiting();
  announce('');
});

/** The first line of a text, short: how a change made of text is named. */
function firstLine(text) {
  const [line] = String(text ?? '').trim().split('\n');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

// MARK: - Undo

/** How long an Undo is offered after a change. */
const UNDO_FOR = 10_000;
/** The last change's undo: its name and the function that sends its inverse; null when none is offered. */
let undoable = null;
let undoTimer = null;

/** The live region the Undo button appears in, so that its appearing is announced. */
function undoRegion() {
  let region = $('#undo-offer');
  if (!region) {
    region = document.createElement('div');
    region.id = 'undo-offer';
    region.className = 'undo-offer';
    region.setAttribute('role', 'status');
    $('#status')?.before(region);
  }
  return region;
}

/** Offers to undo the change just made (`what`, in the page's words) for UNDO_FOR: an Undo
 *  button by the status line, and Ctrl+Z (⌘Z). `run` sends the inverse change and answers what to say. */
function offerUndo(what, run) {
  withdrawUndo();
  undoable = { what, run };
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'undo';
  button.textContent = t('undo.button');
  button.setAttribute('aria-keyshortcuts', 'Control+Z Meta+Z');
  const hint = document.createElement('span');
  hint.className = 'visually-hidden';
  hint.textContent = t('undo.offer', { change: what, seconds: NUMBERS.format(UNDO_FOR / 1000) });
  undoRegion().replaceChildren(hint, button);
  undoTimer = clock.later(UNDO_FOR, withdrawUndo);
}

/** Takes the Undo offer back: its time is up, another change was made, or it was used. */
function withdrawUndo() {
  clock.cancel(undoTimer);
  undoTimer = null;
  undoable = null;
  const hadFocus = document.activeElement?.id === 'undo';
  $('#undo-offer')?.replaceChildren();
  if (hadFocus) rows()[0]?.focus();
}

/** Sends the inverse of the last change; a list that moved meanwhile is said, not guessed at. */
async function undo() {
  const offered = undoable;
  if (!offered) return;
  withdrawUndo();
  try {
    announce(await offered.run());
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    announce(t('undo.offline'));
  }
}

/** What to say when an inverse change was refused: the list moved (412), or the server's reason. */
async function undoRefused(response) {
  await refresh();
  return response?.status === 412 || !response ? t('undo.stale') : problemOf(response);
}

/** The list's tag at `revision`, as the page refreshed just after a change shows it; null when
 *  the page shows a later list already (it moved meanwhile). */
function listTagAt(revision) {
  return Number(view()?.dataset.revision) === revision ? view().dataset.etag : null;
}

/** Each of `ids`' tags at `revision`, from the refreshed rows; null when the list moved already. */
function tripTagsAt(ids, revision) {
  const tags = ids.map((id) => rowFor(id)?.dataset.etag);
  return listTagAt(revision) && tags.every(Boolean) ? tags : null;
}

/** The list's tag, when the list is still at `revision`. */
async function currentListTag(revision) {
  const response = await send('HEAD', '/trips?limit=1');
  return response.ok && Number(response.headers.get('Trips-Revision')) === revision ? response.headers.get('ETag') : null;
}

/**
 * The reorders that put `ids` back where they stood in `order` (the list before the move):
 * each run of them that stood together goes back in front of the trip that followed it.
 *
 *     movesBack([2, 5], [1, 2, 3, 4, 5, 6])
 *     // [{sources: [2], before: 3}, {sources: [5], before: 6}]
 */
function movesBack(ids, order) {
  const moved = new Set(ids);
  const runs = [];
  order.forEach((id, index) => {
    if (!moved.has(id)) return;
    if (index > 0 && moved.has(order[index - 1])) runs.at(-1).sources.push(id);
    else runs.push({ sources: [id], before: null });
    runs.at(-1).before = order[index + 1] ?? null;
  });
  return runs;
}

/** Undoes a move: each run of the trips back in front of the trip that followed it, on the
 *  list as the move (then the previous reorder) left it. */
async function moveBack(ids, order, ifMatch) {
  let tag = ifMatch;
  for (const { sources, before } of movesBack(ids, order)) {
    if (!tag) return undoRefused(null);
    const destination = before ? { before } : 'end';
    const response = await send('PATCH', '/trips', { json: { sources, destination }, ifMatch: tag, minimal: true });
    if (!response.ok) return undoRefused(response);
    tag = response.headers.get('ETag');
  }
  await refresh();
  rowFor(ids[0])?.focus();
  return t('undo.move', { trips: names(ids) });
}

/** Undoes a favorite drop: exactly the trips it added are favorites no more, each on its own
 *  tag as the drop left it. */
async function unfavorite(added, tags) {
  if (!tags) return undoRefused(null);
  const trips = names(added);
  for (const [index, id] of added.entries()) {
    const response = await send('DELETE', `/favorites/${id}`, { ifMatch: tags[index] });
    if (!response.ok) return undoRefused(response);
  }
  await refresh();
  return t('undo.favorites', { trips });
}

/**
 * Where each of `ids` stands in the stored list, before it is deleted: its JSON and the trip
 * that follows it (none of `ids`; null: the end). From the rows when they show the whole list
 * in stored order, else from the server (a filtered or sorted view shows other neighbours).
 * Null when a trip's JSON is not on the page, or the server cannot be reached: no undo then.
 */
async function placesOf(ids) {
  if (navigator.onLine === false) return null; // the delete waits: there is nothing to undo yet
  const deleted = new Set(ids);
  const shown = rows().map((row) => Number(row.dataset.id));
  const showsStoredOrder = isReorderable() && !$('a[rel="next"]');
  try {
    const places = await Promise.all(ids.map(async (id) => {
      const json = tripJSON(rowFor(id));
      if (!json) return null;
      let following = shown.slice(shown.indexOf(id) + 1);
      if (!showsStoredOrder) {
        const response = await send('GET', `/trips?after=${id}&limit=${ids.length + 1}`);
        if (!response.ok) return null;
        following = (await response.json()).map((trip) => trip.id);
      }
      return { json, before: following.find((other) => !deleted.has(other)) ?? null };
    }));
    return places.every(Boolean) ? places : null;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return null;
  }
}

/** A trip's JSON as a draft to create it again: no id (the server issues ids, and never one
 *  twice) and no photo (a photo is set by a request of its own), the price digit for digit. */
function draftOf(json) {
  const { id, photo, price, ...fields } = JSON.parse(json);
  return `${JSON.stringify(fields).slice(0, -1)},"price":${exactPrice(json) ?? String(price)}}`;
}

/** Undoes a delete: the trips created again from their JSON, in front of the trips that
 *  followed them (one request per place), each on the list as the delete (then the previous
 *  place) left it. They come back with new ids, and without their photos: the status says so. */
async function bringBack(places, ifMatch) {
  const groups = [];
  for (const { json, before } of places) {
    if (groups.at(-1)?.before === before) groups.at(-1).drafts.push(draftOf(json));
    else groups.push({ before, drafts: [draftOf(json)] });
  }
  const created = [];
  let tag = ifMatch;
  for (const { before, drafts } of groups) {
    if (!tag) return undoRefused(null);
    const url = before ? `/trips?before=${before}` : '/trips';
    const response = await send('POST', url, { raw: `[${drafts.join(',')}]`, type: 'application/json', ifMatch: tag });
    if (!response.ok) return undoRefused(response);
    created.push(...(await response.json()).map((trip) => trip.id));
    tag = await currentListTag(Number(response.headers.get('Trips-Revision')));
  }
  await refresh();
  rowFor(created[0])?.focus();
  const hadPhotos = places.some(({ json }) => JSON.parse(json).photo);
  const back = tc('undo.restored', created.length, { trips: names(created), ids: created.join(', ') });
  return hadPhotos ? `${back} ${t('undo.noPhoto')}` : back;
}

document.addEventListener('click', (event) => {
  if (event.target.closest('#undo')) undo();
});

// Ctrl+Z (⌘Z on a Mac) undoes too, except where it undoes typing.
document.addEventListener('keydown', (event) => {
  if (!undoable || event.key.toLowerCase() !== 'z' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
  if (event.target.closest?.('input, textarea, select, [contenteditable]')) return;
  event.preventDefault();
  undo();
});

// MARK: - Live

/** The change feed the page follows; null while it follows none. */
let feed = null;

/** Follows /trips/changes from the revision the page shows; each newer change refreshes
 *  the page. A favorites change that added trips is celebrated, wherever it was made. */
function follow() {
  stopFollowing();
  const source = new EventSource(`/trips/changes?since=${view().dataset.revision}`);
  feed = source;
  const onChange = (event) => {
    const revision = Number(event.lastEventId);
    if (event.type === 'favorites' && JSON.parse(event.data).added.length > 0) celebrate(revision);
    if (revision > Number(view().dataset.revision)) refresh();
  };
  for (const kind of EVENT_KINDS) source.addEventListener(kind, onChange);
  source.addEventListener('error', () => {
    if (source.readyState !== EventSource.CLOSED) return; // the browser reconnects by itself
    // Closed: the history no longer reaches back to this page (410), or access was refused.
    refresh().then(() => setTimeout(() => { if (feed === source) follow(); }, 1000));
  });
}

/** Stops following the change feed: nothing it tells refreshes the page any more. */
function stopFollowing() {
  feed?.close();
  feed = null;
}

if (view()?.dataset.revision) {
  follow();
  // A page the browser leaves stops following, so no refresh races the navigation (nor the
  // browser's own closing of the stream, which would look like a refused one); a page it keeps
  // and shows again (the back button) follows again from the revision it shows.
  window.addEventListener('pagehide', stopFollowing);
  window.addEventListener('pageshow', (event) => { if (event.persisted) follow(); });
}
// The Undo's live region is there before anything appears in it, so that its appearing is announced.
if ($('#status')) undoRegion();
// Changes kept by an earlier visit (or another tab) while offline: count them, and send them.
if (waitingChanges().length > 0) {
  showWaiting();
  announce('');
  sendWaiting();
}
