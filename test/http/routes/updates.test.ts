import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { openEventStream } from '../../helpers/sse.js';

describe('GET /api/updates (server-sent events)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite');
  });
  after(() => t.destroy());

  it('streams named events with increasing ids and JSON data, and heartbeat comments', async () => {
    const stream = await openEventStream(`${t.url}/api/updates`);
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('content-type')).to.match(/text\/event-stream/);
      await t.request('PUT', '/api/settings/', { 'queue.max_retries': 1 });
      await t.request('PUT', '/api/settings/', { 'queue.max_retries': 2 });
      await stream.next((e) => e.event === 'settings_changed' && JSON.parse(e.data).settings.queue.max_retries === 2);
      const changes = stream.events.filter((e) => e.event === 'settings_changed');
      expect(changes).to.have.length(2);
      expect(Number(changes[1]!.id)).to.be.greaterThan(Number(changes[0]!.id));
      const data = JSON.parse(changes[0]!.data) as Record<string, unknown>;
      expect(data.keys).to.deep.equal(['queue.max_retries']);
      expect(data.timestamp).to.be.a('string');
      // The test service beats every 300 ms (15 s in production).
      const deadline = Date.now() + 5000;
      while (stream.comments.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(stream.comments.length).to.be.greaterThan(0);
    } finally {
      stream.close();
    }
  });

  it('replays what a reconnecting client missed, from Last-Event-ID', async () => {
    const first = await openEventStream(`${t.url}/api/updates`);
    await t.request('PUT', '/api/settings/', { 'queue.max_retries': 4 });
    const seen = await first.next((e) => e.event === 'settings_changed' && JSON.parse(e.data).settings.queue.max_retries === 4);
    first.close();
    // While disconnected:
    await t.request('PUT', '/api/settings/', { 'queue.max_retries': 5 });
    await t.request('PUT', '/api/settings/', { 'queue.max_retries': 6 });
    const again = await openEventStream(`${t.url}/api/updates`, { 'last-event-id': seen.id! });
    try {
      await again.next((e) => e.event === 'settings_changed' && JSON.parse(e.data).settings.queue.max_retries === 6);
      const replayed = again.events.filter((e) => e.event === 'settings_changed').map((e) => JSON.parse(e.data).settings.queue.max_retries);
      expect(replayed).to.deep.equal([5, 6]);
      expect(again.events.every((e) => Number(e.id) > Number(seen.id))).to.equal(true);
    } finally {
      again.close();
    }
  });

  it('says when a reconnecting client missed more than the buffer holds', async () => {
    const small = await startTestService('pglite', {}, undefined, { eventReplayCapacity: 2 });
    try {
      for (let i = 1; i <= 4; i++) await small.request('PUT', '/api/settings/', { 'queue.max_retries': i });
      const stream = await openEventStream(`${small.url}/api/updates`, { 'last-event-id': '1' });
      try {
        const missed = await stream.next((e) => e.event === 'events_missed');
        expect(JSON.parse(missed.data)).to.include({ last_event_id: 1, first_available_id: 4 });
        await stream.next((e) => e.event === 'settings_changed' && JSON.parse(e.data).settings.queue.max_retries === 4);
        expect(stream.events.map((e) => e.event)).to.deep.equal(['events_missed', 'settings_changed', 'settings_changed']);
      } finally {
        stream.close();
      }
    } finally {
      await small.destroy();
    }
  });

  it('filters by ?types= and rejects a malformed Last-Event-ID', async () => {
    const stream = await openEventStream(`${t.url}/api/updates?types=service_stopping&last_event_id=0`);
    try {
      await t.request('PUT', '/api/settings/', { 'queue.max_retries': 7 });
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.events.filter((e) => e.event !== 'service_stopping')).to.have.length(0);
    } finally {
      stream.close();
    }
    const bad = await t.request('GET', '/api/updates', undefined, { 'last-event-id': 'abc' });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal('invalid_request');
    // A misspelt event name would filter everything out without a word: it is refused, naming it.
    for (const types of ['nope', 'file_indexed,fileindexed']) {
      const unknown = await t.request('GET', `/api/updates?types=${types}`);
      expect(unknown.status, types).to.equal(400);
      expect(unknown.body.code).to.equal('invalid_request');
      expect(unknown.body.message).to.match(/types: unknown event name '(nope|fileindexed)'; known: .*file_indexed/);
    }
  });
});
