// Public surface of the viewer shared by the three hosts.

export type { ViewerHandle, ViewerHost } from './mount';
export { mountAny, mountViewer } from './mount';
export type { Note, Payload } from './payload';
export { isPacked, MIME_TYPE, PayloadError, unpackPayload, validatePayload } from './payload';
