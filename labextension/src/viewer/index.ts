// Public surface of the viewer shared by the three hosts.
export { mountViewer } from './app';
export type { ViewerHandle, ViewerHost } from './app';
export { MIME_TYPE, validatePayload, PayloadError } from './payload';
export type { Note, Payload } from './payload';
