CREATE TABLE "kv_entries" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spent_refresh_tokens" (
	"refresh_hash" varchar(64) PRIMARY KEY NOT NULL,
	"session_id" varchar(36) NOT NULL,
	"spent_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "spent_refresh_tokens" ADD CONSTRAINT "spent_refresh_tokens_session_id_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "kv_entries_expires" ON "kv_entries" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "spent_refresh_tokens_session" ON "spent_refresh_tokens" USING btree ("session_id");