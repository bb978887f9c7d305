import type { SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';

/**
 * Facts about clinical work that other parts of the system react to (system queries, realtime pushes,
 * follow-up scheduling, search indexing). An event is written to the outbox inside the transaction of
 * the change it describes and delivered to subscribers only after that transaction commits, so a crash
 * between commit and delivery loses nothing (delivery is at least once: subscribers are idempotent).
 *
 * Events carry ids and who acted, never clinical values or identifiers: a subscriber that needs the
 * data reads it under its own rules. `subjectId` is the patient (subjects.id).
 *
 * A save of a form records one event: `record.submitted` when that save submitted the form (its first
 * submission), `record.saved` for every other save, so a subscriber of both hears of each save once.
 */
export type DomainEvent =
  | { type: 'subject.enrolled'; studyId: number; subjectId: number; by: number }
  | {
      type: 'record.saved';
      studyId: number;
      subjectId: number;
      crfId: number;
      recordId: number;
      by: number;
    }
  | {
      type: 'record.submitted';
      studyId: number;
      subjectId: number;
      crfId: number;
      recordId: number;
      by: number;
    }
  | {
      type: 'query.opened';
      studyId: number;
      subjectId: number;
      crfId: number;
      queryId: number;
      /** null when the system raised it (a range or consistency check on submit). */
      by: number | null;
    }
  | {
      type: 'query.answered';
      studyId: number;
      subjectId: number;
      crfId: number;
      queryId: number;
      by: number;
    }
  | {
      type: 'query.closed';
      studyId: number;
      subjectId: number;
      crfId: number;
      queryId: number;
      /** null when the system closed it (the value it questioned was corrected). */
      by: number | null;
    };

export type DomainEventType = DomainEvent['type'];

/** An event as delivered: its outbox row id (for idempotent subscribers) and when it was recorded. */
export interface DeliveredEvent {
  readonly id: number;
  readonly occurredAt: Date;
  readonly event: DomainEvent;
}

/** A recorded event's key in the outbox (what `record` answers). */
export interface RecordedEvent {
  readonly studyId: number;
  readonly id: number;
}

export type DomainEventHandler = (delivered: DeliveredEvent) => Promise<void>;

export interface DomainEvents {
  /**
   * Writes the event into the outbox with the caller's transaction (`tx`), so it commits or rolls back
   * with the change. Answers the event's key (for `delivered`).
   */
  record(tx: Db, event: DomainEvent): Promise<RecordedEvent>;
  /**
   * `record` folded into the caller's own statement (a save writes its record, its event and its chain head in
   * one): `ctes` go into the caller's WITH list, `eventId` is a scalar expression of the event's id for its
   * SELECT list, and `recorded` is called with that id once the statement ran.
   */
  recordIn(event: DomainEvent): EventRecording;
  /** `record` for several events in one go (a few statements whatever their number), answered in their order. */
  recordMany(tx: Db, events: readonly DomainEvent[]): Promise<RecordedEvent[]>;
  /**
   * Registers a named subscriber for some event types. Each subscriber sees each event at least once,
   * after the change committed, on exactly one app server.
   */
  subscribe(subscriber: string, types: readonly DomainEventType[], handler: DomainEventHandler): void;
  /**
   * Resolves once every event recorded so far (and committed) has been delivered to every subscriber
   * of this process, whichever app server delivered it; rejects after a while with what is pending.
   * For tests and for tools that must see the reactions before they go on.
   */
  drain(): Promise<void>;
  /**
   * Waits, at most `timeoutMs`, until the committed event `recorded` has been delivered to `subscriber`
   * (by any app server): true when it has, false on time-out (it is still delivered later). For an
   * answer that should show a reaction to the caller's own change when it comes promptly.
   */
  delivered(recorded: RecordedEvent, subscriber: string, timeoutMs: number): Promise<boolean>;
  /**
   * Waits, at most `timeoutMs`, until the committed event `recorded` has been delivered to every subscriber: true
   * when it has. A bulk writer (the data import) waits for its previous batch's reactions before it writes the next,
   * so that it never runs far ahead of them.
   */
  settled(recorded: RecordedEvent, timeoutMs: number): Promise<boolean>;
}

export interface EventRecording {
  readonly ctes: SQL;
  readonly eventId: SQL;
  recorded(tx: Db, id: number | string): RecordedEvent;
}

/** Where the dispatcher reports: pino's shape (Fastify's logger), ids only. */
export interface EventLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The events of the application context: the contract plus the dispatcher's life (started and stopped by the app). */
export interface EventOutbox extends DomainEvents {
  start(log: EventLog): Promise<void>;
  stop(): Promise<void>;
}
