// Public surface of the viewer shared by the three hosts.

export type { ViewerHandle, ViewerHost } from './mount';
export { mountAny, mountViewer } from './mount';
export { isPacked, unpackPayload } from './packed';
export type { Note, Payload } from './payload';
export { MIME_TYPE, PayloadError, validatePayload } from './payload';
