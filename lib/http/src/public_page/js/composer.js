// The message box: Enter sends (Shift+Enter starts a new line), the box clears at once, a
// counter shows near the limit and is announced once at each step, and fields read in the
// direction of what is typed.

import { el } from "./render.js";
import { COUNT_FROM, LIMIT, counterStep } from "./state.js";

// A field reads in the direction of what is typed; empty, in the page's (its placeholder too).
// Returns the function that sets it again (after the field is cleared from script).
export function ownDirection(field) {
  function follow() {
    if (field.value) field.dir = "auto";
    else field.removeAttribute("dir");
  }
  field.addEventListener("input", follow);
  return follow;
}

// composer: the form; input: its textarea; texts; submit(text) → whether it was taken.
export function setUpComposer(composer, input, texts, submit) {
  const counter = el("p", "counter");
  counter.id = "counter";
  counter.hidden = true;
  composer.appendChild(counter);
  const announcer = el("p", "visually-hidden");
  announcer.setAttribute("aria-live", "polite");
  composer.appendChild(announcer);
  const described = input.getAttribute("aria-describedby");
  input.setAttribute("aria-describedby", (described ? described + " " : "") + "counter");
  let announced = 0;

  function updateCounter() {
    const n = input.value.length;
    counter.hidden = n < COUNT_FROM;
    counter.textContent = texts.number(n) + " / " + texts.number(LIMIT);
    counter.classList.toggle("full", n >= LIMIT);
    // Announced once at each step, not at every key.
    const step = counterStep(n);
    if (step > announced) {
      announcer.textContent =
        step === 3 ? texts.t("limit_reached", { limit: texts.number(LIMIT) }) : texts.plural("chars_left", LIMIT - n);
    }
    announced = step;
  }
  input.addEventListener("input", updateCounter);
  const inputDirection = ownDirection(input);

  function sendTyped() {
    if (submit(input.value)) {
      input.value = "";
      updateCounter();
      inputDirection();
    }
  }

  composer.addEventListener("submit", (e) => {
    e.preventDefault();
    sendTyped();
  });
  input.addEventListener("keydown", (e) => {
    // Enter sends, Shift+Enter starts a new line.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendTyped();
    }
  });
}
