// The speaker button under an answer (data-voice="true"): the answer spoken (GET …/speech),
// fetched once, then played and paused.

import { el } from "./render.js";

// A function that adds the button to an answer's tools: speaker(tools, messageId). env:
// {voice, session, texts, transport, status (a StatusLine)}.
export function speakerFor(env) {
  const { texts, transport, status } = env;
  const t = (key) => texts.t(key);
  return function speaker(tools, messageId) {
    if (!env.voice || !messageId) return;
    const b = el("button", "speak", t("listen"));
    b.type = "button";
    b.setAttribute("aria-pressed", "false");
    b.setAttribute("aria-label", t("listen.label"));
    let audio = null;
    const current = env.session.conversation;
    function playing(on) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = on ? t("pause") : t("listen");
    }
    function fetchAudio() {
      return transport.speech(current, messageId).then((res) => {
        if (!res.ok) {
          return transport.failure(res).then((err) => {
            // Voice turned off: final. Speech unavailable (503) may be a model that did not
            // answer this time: the visitor can try again.
            if (res.status === 409) {
              b.disabled = true;
              err.final = true;
            }
            throw err;
          });
        }
        return res.blob().then((blob) => {
          audio = new Audio(URL.createObjectURL(blob));
          audio.addEventListener("play", () => playing(true));
          audio.addEventListener("pause", () => playing(false));
          audio.addEventListener("ended", () => playing(false));
          return audio;
        });
      });
    }
    function speak() {
      if (audio && !audio.paused) {
        audio.pause();
        return;
      }
      const ready = audio ? Promise.resolve(audio) : fetchAudio();
      b.disabled = true;
      ready
        .then((a) => {
          b.disabled = false;
          return a.play();
        })
        .then(() => {
          if (status.kind === "speech") status.set("");
        })
        .catch((err) => {
          const final = err && err.final;
          if (!final) b.disabled = false;
          const message = err && err.fromServer && final ? err.message : t("listen.failed");
          status.set(message, true, final ? null : () => {
            speak();
            b.focus();
          }, "speech");
        });
    }
    b.addEventListener("click", speak);
    tools.appendChild(b);
  };
}
