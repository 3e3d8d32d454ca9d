// Public surface of the viewer shared by the three hosts.
export { mountAny, mountViewer } from './app';
export type { ViewerHandle, ViewerHost } from './app';
export { MIME_TYPE, isPacked, unpackPayload, validatePayload, PayloadError } from './payload';
export type { Note, Payload } from './payload';
