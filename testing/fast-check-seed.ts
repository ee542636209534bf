/**
 * Property tests explore new random cases on every local run (that is how they find bugs), but CI
 * replays one seed, so that whether a change lands is decided by the code and not by the draw. Any run
 * can replay a failure with FC_SEED=<seed printed by fast-check>.
 */
import fc from "fast-check";

const CI_SEED = 20_261_122;
const seed = process.env["FC_SEED"]
  ? Number(process.env["FC_SEED"])
  : process.env["CI"] === "true"
    ? CI_SEED
    : undefined;
if (seed !== undefined) fc.configureGlobal({ seed });
