CREATE TABLE "audit_chain_heads" (
	"study_id" integer PRIMARY KEY NOT NULL,
	"hash" varchar(64),
	"last_id" bigint,
	"row_count" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "prev_hash" varchar(64);--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "hash" varchar(64);--> statement-breakpoint
CREATE INDEX "audit_events_unchained" ON "audit_events" USING btree ("study_id","id") WHERE "audit_events"."hash" is null;