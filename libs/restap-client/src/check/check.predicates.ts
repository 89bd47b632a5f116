import { findNewsRead, findNewsWrite, findTalk, sessionRequired, sessionsAdvertised, streamingAdvertised } from '../catalog/catalog.lookup';
import type { RestapCatalog } from '../interfaces/catalog.interface';

/** `applies()` building blocks: what the catalog advertises. */
export const hasTalk = (catalog: RestapCatalog): boolean => findTalk(catalog) !== undefined;
export const streams = (catalog: RestapCatalog): boolean => streamingAdvertised(findTalk(catalog));
export const talkSessions = (catalog: RestapCatalog): boolean => sessionsAdvertised(findTalk(catalog));
export const hasNewsRead = (catalog: RestapCatalog): boolean => findNewsRead(catalog) !== undefined;
export const hasNewsWrite = (catalog: RestapCatalog): boolean => findNewsWrite(catalog) !== undefined;
export const newsReadScoped = (catalog: RestapCatalog): boolean => sessionRequired(findNewsRead(catalog));
export const newsWriteScoped = (catalog: RestapCatalog): boolean => sessionRequired(findNewsWrite(catalog));
