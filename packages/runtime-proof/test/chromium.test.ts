/**
 * Every promise in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core), against a
 * simulator on 127.0.0.1. Chromium is a system program: without it this suite skips loudly, except
 * under CI=true, where it fails instead.
 */
import { programAvailable } from "../../../testing/system-programs.ts";
import { describeRuntime } from "./harness/runtime-suite.ts";

describeRuntime("chromium", { skip: !programAvailable("chromium", "runtime-proof Chromium scenarios") });
