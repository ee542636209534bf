/**
 * The running simulator: both servers, their credentials and the control surface. Its own file so the
 * package entry (index.ts) and the command (cli.ts) both import it without importing each other.
 */
import type { Keys } from "./auth.js";
import { controlRoutes, createControl, type SimulatorControl } from "./control.js";
import type { SimulatorProfile } from "./profile.js";
import type { ReferenceData } from "./reference.js";
import { listen, stop } from "./server.js";
import { createState, type SimulatorOptions } from "./state.js";

/** A running simulator. */
export interface Simulator {
  /** Main API base URL, e.g. `http://127.0.0.1:PORT` (paths begin with /v1; control under /_sim). */
  baseUrl: string;
  /** File service base URL. */
  filesUrl: string;
  /** A valid production API key (same as `keys.apiKey`). */
  apiKey: string;
  /** Every key the simulator knows, valid or not. */
  keys: Keys;
  /** A file-service user session token. */
  sessionToken: string;
  /** The session token's workspace id (send it in `x-service-workspace-id`). */
  workspaceId: string;
  /** A sample X-External-User-ID value. */
  externalUserId: string;
  /** The first webhook signing secret (`whsec_...`). */
  webhookSecret: string;
  /** Every webhook signing secret. */
  webhookSecrets: string[];
  /** Seeded reference data ids. */
  reference: ReferenceData;
  /** The seed in use (pass it back in `options.seed` to replay a run). */
  seed: number;
  /**
   * The variant profile in use: the reading taken of each row of docs/gaps.md (`default` everywhere
   * for profile 0). Print it when a test fails under a profile.
   */
  profile: SimulatorProfile;
  /** Programmatic control (the same operations as the HTTP surface under /_sim). */
  control: SimulatorControl;
  /** Stops both servers, ends every socket, timer and pending webhook retry, and deletes stored bytes. */
  close(): Promise<void>;
}

/** Starts both servers on 127.0.0.1 (ephemeral ports unless given). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const state = await createState(options);
  const control = createControl(state);
  let simulator: Simulator | undefined;
  const info = () => {
    const { control: _control, close: _close, ...rest } = simulator!;
    return { ...rest };
  };
  const routes = controlRoutes(control, info);
  const main = await listen(state, "main", options.mainPort ?? 0, routes).catch(async (error: unknown) => {
    await state.uploads.close();
    throw error;
  });
  const files = await listen(state, "files", options.filesPort ?? 0, routes).catch(async (error: unknown) => {
    await stop(main.server);
    await state.uploads.close();
    throw error;
  });
  let closing: Promise<void> | undefined;
  simulator = {
    baseUrl: main.url,
    filesUrl: files.url,
    apiKey: state.credentials.keys.apiKey,
    keys: { ...state.credentials.keys },
    sessionToken: state.credentials.sessionToken,
    workspaceId: state.credentials.workspaceId,
    externalUserId: state.externalUserId,
    webhookSecret: state.webhookSecrets[0]!,
    webhookSecrets: [...state.webhookSecrets],
    reference: structuredClone(state.reference),
    seed: state.seed,
    profile: structuredClone(state.profile),
    control,
    close: () => {
      closing ??= (async () => {
        state.scheduler.clear();
        state.webhooks.close();
        await Promise.all([stop(main.server), stop(files.server)]);
        await state.uploads.close();
      })();
      return closing;
    },
  };
  return simulator;
}
