/// The forms the script drives, written once into every list page after `#view` (so a
/// refresh of the list never loses what someone is typing): add a trip with fields (and the
/// photo dropped between two trips, shown before it is sent) or in one sentence, edit one,
/// confirm a delete, and give a token when the server asks for one.
/// Without the script they stay hidden (`html:not(.js) .needs-script`).
enum TripForms {
    static func render(into html: inout HTMLWriter) {
        html.markup(
            """
            <section id="add" class="panel needs-script" lang="en" aria-labelledby="add-title">
            <h2 id="add-title">Add a trip</h2>
            <form id="add-form" class="trip-form">

            """)
        html.markup(draftFields)
        html.markup(
            """
            <figure id="add-photo" class="attached-photo wide" hidden><img alt="The photo to add">
            <figcaption><span id="add-photo-where"></span> <button type="button" data-action="detach-photo">Remove photo</button></figcaption></figure>
            <label class="check"><input name="isFavorite" type="checkbox"> Favorite</label>
            <button type="submit">Add trip</button>
            </form>
            <form id="sentence-form" class="sentence-form">
            <label>Or in one sentence <input name="sentence" placeholder="Lisbon, Portugal: 4 nights from May 1, 2027" required></label>
            <button type="submit">Add</button>
            </form>
            </section>
            <section id="editor" class="panel" lang="en" aria-labelledby="edit-title" hidden>
            <h2 id="edit-title">Edit trip</h2>
            <form id="edit-form" class="trip-form">

            """)
        html.markup(draftFields)
        html.markup(
            """
            <button type="submit">Save</button> <button type="button" data-action="cancel-edit">Cancel</button>
            </form>
            </section>
            <section id="confirm" class="panel warning" lang="en" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-text" hidden>
            <h2 id="confirm-title">Delete trip?</h2>
            <p id="confirm-text">This cannot be undone.</p>
            <button type="button" data-action="confirm-delete">Delete</button> <button type="button" data-action="cancel-delete">Cancel</button>
            </section>
            <section id="token" class="panel" lang="en" aria-labelledby="token-title" hidden>
            <h2 id="token-title">This server needs a token to make changes</h2>
            <form id="token-form">
            <label>Bearer token <input name="token" type="password" autocomplete="off" required></label>
            <button type="submit">Use token</button>
            <p class="hint">It is kept for this tab only.</p>
            </form>
            </section>

            """)
    }

    /// A draft's fields, as the add, the edit and the trip page's forms all ask for them (the
    /// limits are the API's, so a browser checks them before sending).
    static let draftFields: StaticString = """
        <label>City <input name="city" required maxlength="200" autocomplete="off"></label>
        <label>Country <input name="country" required maxlength="200" autocomplete="off"></label>
        <label>Nights <input name="nights" type="number" min="1" max="365" value="3" required></label>
        <label>Start <input name="start" type="date" required></label>
        <label>Price <input name="price" inputmode="decimal" value="0" pattern="[0-9]+([.][0-9]+)?" required></label>
        <label class="wide">Notes <textarea name="notes" rows="2" maxlength="10000"></textarea></label>

        """
}
