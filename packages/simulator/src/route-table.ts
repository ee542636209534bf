/**
 * The routes both services answer, as plain data: what a description of the service (the OpenAPI
 * document) is checked against, so a route added here and missing there fails a test.
 */
import { fileRoutes } from "./file-service.js";
import { mainRoutes } from "./main-api.js";

/** One route a service answers (the control surface under `/_sim` is not one). */
export interface ServiceRoute {
  /** `main` for the main API at `baseUrl`, `files` for the file service at `filesUrl`. */
  readonly service: "main" | "files";
  /** Upper-case method. */
  readonly method: string;
  /** The path template with `{name}` parameters, as the spec writes them: `/v1/uploads/{uploadId}`. */
  readonly path: string;
}

/** Every route of the main API and of the file service. */
export function serviceRoutes(): ServiceRoute[] {
  const table = (service: ServiceRoute["service"], routes: typeof mainRoutes): ServiceRoute[] =>
    routes.map((route) => ({
      service,
      method: route.method,
      path: route.pattern.replace(/:([A-Za-z]+)/g, "{$1}"),
    }));
  return [...table("main", mainRoutes), ...table("files", fileRoutes)];
}
