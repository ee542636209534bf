/**
 * The promotion `fileFormat` values, with the rest of the promotion's rules: promotions-core validates
 * requests against the list, and the facade and the CLI offer it. link-capture reports a capture's
 * format as the service's word (a string) and needs no list.
 */

/** The `fileFormat` values the spec lists: `text` takes inline `content`, every other one `uploadIds`. */
export const FILE_FORMATS = ["text", "video", "audio", "image", "pdf", "document"] as const;

/**
 * A promotion `fileFormat`: one of {@link FILE_FORMATS}, or a value the service names that the list
 * does not hold yet. The type is open because a capture's answer carries the service's word ("a drive
 * file can be any supported format"), and that word is passed on as given; client-side validation of
 * a request still refuses a value outside the list. Screenshots and design frames are always `image`.
 */
export type FileFormat = (typeof FILE_FORMATS)[number] | (string & {});

/** Whether `value` is one of the spec's {@link FILE_FORMATS}. */
export function isListedFileFormat(value: unknown): value is (typeof FILE_FORMATS)[number] {
  return (FILE_FORMATS as readonly unknown[]).includes(value);
}
