/** Wire types of GET and POST /news: defined once for the module and the client (see `../wire`). */
export type { NewsItem, NewsPage, NewNewsItem, NewsAck } from '../wire/news';
