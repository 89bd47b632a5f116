import { itemJson, pageJson, toNewsItem } from './news-page.writer';

describe('news page writer', () => {
  it('splices timestamp and news_id after the stored body text, leaving it byte for byte', () => {
    const body = '{"type":"reply","message":"é😀\\u0000\\ud800","n":1.5e300}';
    expect(itemJson({ id: '7', ts: 1703012345000, body })).toBe(
      '{"type":"reply","message":"é😀\\u0000\\ud800","n":1.5e300,"timestamp":1703012345000,"news_id":"news_7"}',
    );
  });

  it('writes {items, timestamp, has_more}', () => {
    const rows = [{ id: '1', ts: 10, body: '{"type":"a"}' }, { id: '2', ts: 11, body: '{"type":"b"}' }];
    const page = JSON.parse(pageJson(rows, 11, true));
    expect(page).toEqual({
      items: [{ type: 'a', timestamp: 10, news_id: 'news_1' }, { type: 'b', timestamp: 11, news_id: 'news_2' }],
      timestamp: 11,
      has_more: true,
    });
    expect(pageJson([], 0, false)).toBe('{"items":[],"timestamp":0,"has_more":false}');
  });

  it('turns a row into a NewsItem object', () => {
    expect(toNewsItem({ id: '3', ts: 5, body: '{"type":"t","data":{"k":[1]}}' })).toEqual({ type: 't', data: { k: [1] }, timestamp: 5, news_id: 'news_3' });
  });

  it('refuses a stored body that is not a JSON object', () => {
    expect(() => itemJson({ id: '1', ts: 1, body: '[1]' })).toThrow(/not a JSON object/);
  });
});
