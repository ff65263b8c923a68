// ESLint for the JavaScript browsers run (scripts/js-test.sh; docs/development.md, "Front end"):
// the console's and the public chat page's ES modules, the embeddable widget.js (a classic
// script on other sites' pages), and the node unit tests of the pure modules.
//
// eslint, @eslint/js and globals are installed by scripts/js-test.sh outside the repository
// (pinned, under ~/.cache/lore/tools/eslint): they are resolved from the eslint that runs this.
import { createRequire } from "node:module";

const require = createRequire(process.argv[1]);
const js = require("@eslint/js");
const globals = require("globals");

const rules = {
  // An unused catch binding is how the scripts say "this failure changes nothing".
  "no-unused-vars": ["error", { caughtErrors: "none", argsIgnorePattern: "^_" }],
  "no-undef": "error",
  eqeqeq: ["error", "always"],
  "no-implicit-globals": "error",
  // Files a person can read in one sitting (issue 58: each module under 600 lines).
  "max-lines": ["error", { max: 600 }],
};

export default [
  js.configs.recommended,
  {
    // The console's and the chat page's modules: loaded by browsers as ES modules.
    files: ["lib/http/src/console/js/**/*.js", "lib/http/src/public_page/js/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules,
  },
  {
    // Embedded with a plain <script> tag on any site: a classic script, one global of its own.
    files: ["lib/http/src/public_page/widget.js"],
    languageOptions: { ecmaVersion: 5, sourceType: "script", globals: globals.browser },
    rules,
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
    rules,
  },
];
