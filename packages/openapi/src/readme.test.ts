import { join } from "node:path";
import { testReadmeExamples } from "../../../testing/readme-examples.ts";

testReadmeExamples(join(import.meta.dirname, ".."));
