import { build } from "esbuild";
import { gzipSync } from "node:zlib";
const dir = "/work/wt/wv/packages/runtime-proof";
for (const c of process.argv.slice(2)) {
  const r = await build({ stdin: { contents: c, resolveDir: dir, loader: "js" }, bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "silent", metafile: true });
  const code = r.outputFiles[0].contents;
  console.log(c, code.byteLength, gzipSync(code, { level: 9 }).byteLength);
  const out = Object.values(r.metafile.outputs)[0];
  const rows = Object.entries(out.inputs).map(([k, v]) => [v.bytesInOutput, k]).sort((a, b) => b[0] - a[0]);
  if (process.env.V) for (const [b, k] of rows) console.log("   ", b, k);
}
