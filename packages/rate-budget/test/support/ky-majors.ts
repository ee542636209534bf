/**
 * The ky majors `kyHooks(budget)` serves (dev dependencies `ky1`, ky 1.14, and `ky`, ky 2.1), each with a
 * `create` that takes the base URL in that major's option (`prefixUrl` in ky 1, `prefix` in ky 2),
 * so one test runs against both.
 */
import ky2, { HTTPError as HTTPError2 } from "ky";
import ky1, { HTTPError as HTTPError1 } from "ky1";

export const KY_MAJORS = [
  {
    major: "ky 1",
    HTTPError: HTTPError1,
    create: (prefixUrl: string, options: Parameters<typeof ky1.create>[0] = {}) =>
      ky1.create({ prefixUrl, ...options }),
  },
  {
    major: "ky 2",
    HTTPError: HTTPError2,
    create: (prefix: string, options: Parameters<typeof ky2.create>[0] = {}) =>
      ky2.create({ prefix, ...options }),
  },
] as const;

/** One of {@link KY_MAJORS}. */
export type KyMajor = (typeof KY_MAJORS)[number];
