// The organizer console: a tapped "start round" says it is working until its page comes.
// Starting a round of 150 tables takes about a second (docs/organizer.md): the button is
// disabled (a second tap would only be refused) and a line under it says what is under way.
for (const form of document.querySelectorAll("form.starts[data-busy]")) {
  const button = form.querySelector("button[type=submit]");
  const status = form.querySelector(".busy");
  form.addEventListener("submit", () => {
    button.disabled = true;  // after the submit began: the form is still sent
    status.textContent = form.dataset.busy;
  });
  // Back to this page from the links page (the browser's page cache): tappable again.
  window.addEventListener("pageshow", () => {
    button.disabled = false;
    status.textContent = "";
  });
}
