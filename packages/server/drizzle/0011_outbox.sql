CREATE TABLE "outbox_deliveries" (
	"study_id" integer NOT NULL,
	"event_id" bigint NOT NULL,
	"subscriber" varchar(50) NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"last_error" varchar(200),
	CONSTRAINT "outbox_deliveries_study_id_event_id_subscriber_pk" PRIMARY KEY("study_id","event_id","subscriber")
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" bigserial NOT NULL,
	"study_id" integer NOT NULL,
	"type" varchar(50) NOT NULL,
	"payload" jsonb NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outbox_events_study_id_id_pk" PRIMARY KEY("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "outbox_deliveries" ADD CONSTRAINT "outbox_deliveries_study_id_event_id_outbox_events_study_id_id_fk" FOREIGN KEY ("study_id","event_id") REFERENCES "public"."outbox_events"("study_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_deliveries_due" ON "outbox_deliveries" USING btree ("subscriber","next_attempt_at") WHERE "outbox_deliveries"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "outbox_events_occurred" ON "outbox_events" USING btree ("occurred_at");