/**
 * The queue as the forwarder sees it, on an SQS client: receive, batch delete,
 * visibility extension.
 *
 * @module
 */
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageSystemAttributeName,
  type QueueAttributeName,
  ReceiveMessageCommand,
  type ReceiveMessageCommandInput,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { withDeadline } from "../../lib/deadline.ts";

/** One received message. */
export interface QueueMessage {
  /** The queue's message id (for log lines). */
  readonly id: string;
  /** The content forwarded to the endpoint. */
  readonly body: string;
  /** Handle used to delete the message or change its visibility. */
  readonly receiptHandle: string;
  /**
   * Message group, on a FIFO queue only: the forwarder posts the messages of one group
   * one after another, in receive order.
   */
  readonly groupId?: string;
  /**
   * The system attributes the receive asked for (`ApproximateReceiveCount`,
   * `SentTimestamp`...), as the queue gave them; absent when none was asked for.
   */
  readonly systemAttributes?: Readonly<Record<string, string>>;
  /** The message attributes, when the receive asked for them. */
  readonly messageAttributes?: Readonly<Record<string, MessageAttribute>>;
}

/** One message attribute. */
export interface MessageAttribute {
  /** `String`, `Number`, `Binary`, or one of them with a custom suffix (`Number.int`). */
  readonly dataType: string;
  /** The value of a String or Number attribute. */
  readonly stringValue?: string;
}

/** An entry of a batch call (delete, visibility change) the queue refused. */
export interface FailedEntry {
  readonly message: QueueMessage;
  /** The queue's error code and message, for the log. */
  readonly reason: string;
  /** The queue's error code alone (`ReceiptHandleIsInvalid`), when it gave one. */
  readonly code?: string;
}

/** What the forwarder needs from a queue. */
export interface Queue {
  /** The queue's own visibility timeout, in seconds; `signal` abandons the ask. */
  visibilityTimeout(signal?: AbortSignal): Promise<number>;
  /**
   * One receive call (long polling); `[]` when nothing came. The messages stay
   * invisible for `visibilityTimeout` seconds, or the queue's own when not given.
   */
  receive(
    signal?: AbortSignal,
    visibilityTimeout?: number,
  ): Promise<QueueMessage[]>;
  /** Deletes up to 10 messages in one call; returns the entries that failed. */
  deleteBatch(messages: readonly QueueMessage[]): Promise<FailedEntry[]>;
  /**
   * Makes up to 10 messages invisible for `seconds` more, from now; returns the
   * entries that failed.
   */
  extendVisibility(
    messages: readonly QueueMessage[],
    seconds: number,
  ): Promise<FailedEntry[]>;
  /**
   * Makes one message invisible for `seconds` from now (0: visible at once), with
   * `ChangeMessageVisibility`.
   */
  setVisibility(message: QueueMessage, seconds: number): Promise<void>;
}

/** Options of {@linkcode createSqsQueue}. */
export interface SqsQueueOptions {
  client: SQSClient;
  queueUrl: string;
  maxMessages: number;
  waitTimeSeconds: number;
  /** Longest wait for a call besides the long poll itself. @default 5000 */
  callTimeoutMs?: number;
  /**
   * System attributes each receive asks for besides a FIFO queue's
   * `MessageGroupId` (see {@linkcode QueueMessage.systemAttributes}). @default none
   */
  systemAttributes?: readonly string[];
  /** Whether each receive asks for all message attributes. @default false */
  messageAttributes?: boolean;
}

/**
 * What a receive asks for: the system attributes by the current parameter, and by
 * the older `AttributeNames`, which SQS still accepts and SQS-compatible servers
 * written before 2024 know alone (without it they return no group, and a FIFO batch
 * would be posted concurrently); the message attributes when wanted. Nothing when
 * nothing is wanted.
 */
function attributesAsked(
  system: readonly string[],
  messageAttributes: boolean,
): Pick<
  ReceiveMessageCommandInput,
  "MessageSystemAttributeNames" | "AttributeNames" | "MessageAttributeNames"
> {
  return {
    ...(system.length === 0 ? {} : {
      MessageSystemAttributeNames: [...system] as MessageSystemAttributeName[],
      // SQS documents these values for the parameter; the SDK's deprecated type
      // lacks them.
      AttributeNames: [...system] as QueueAttributeName[],
    }),
    ...(messageAttributes ? { MessageAttributeNames: ["All"] } : {}),
  };
}

/** Whether `queueUrl` names a FIFO queue: SQS requires their names to end in `.fifo`. */
function isFifoQueue(queueUrl: string): boolean {
  return /\.fifo\/*$/.test(new URL(queueUrl).pathname);
}

/**
 * Returns a {@linkcode Queue} on an SQS client. Every call is bounded in time, so a
 * paused or unreachable server surfaces as an error instead of a hang. On a FIFO queue
 * each message carries its group; a standard queue's messages never do (there a group
 * id only shares the queue fairly among tenants, it orders nothing).
 */
export function createSqsQueue(options: SqsQueueOptions): Queue {
  const { client, queueUrl } = options;
  const callTimeoutMs = options.callTimeoutMs ?? 5_000;
  const fifo = isFifoQueue(queueUrl);
  const systemAsked = [
    ...(fifo ? ["MessageGroupId"] : []),
    ...(options.systemAttributes ?? []),
  ];
  const asked = attributesAsked(
    systemAsked,
    options.messageAttributes ?? false,
  );
  const keepSystem = (options.systemAttributes ?? []).length > 0;
  const keepMessage = options.messageAttributes ?? false;

  const bounded = <T>(
    ms: number,
    signal: AbortSignal | undefined,
    call: (signal: AbortSignal) => Promise<T>,
  ) => withDeadline(ms, signal, call, `Queue call timed out after ${ms} ms`);

  const entries = (messages: readonly QueueMessage[]) =>
    messages.map((message, index) => ({
      Id: String(index),
      ReceiptHandle: message.receiptHandle,
    }));

  return {
    async visibilityTimeout(signal) {
      const reply = await bounded(
        callTimeoutMs,
        signal,
        (abortSignal) =>
          client.send(
            new GetQueueAttributesCommand({
              QueueUrl: queueUrl,
              AttributeNames: ["VisibilityTimeout"],
            }),
            { abortSignal },
          ),
      );
      const seconds = Number(reply.Attributes?.VisibilityTimeout);
      if (!Number.isFinite(seconds)) {
        throw new Error("The queue did not report its visibility timeout");
      }
      return seconds;
    },

    async receive(signal, visibilityTimeout) {
      const reply = await bounded(
        options.waitTimeSeconds * 1000 + callTimeoutMs,
        signal,
        (abortSignal) =>
          client.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: options.maxMessages,
              WaitTimeSeconds: options.waitTimeSeconds,
              VisibilityTimeout: visibilityTimeout,
              ...asked,
            }),
            { abortSignal },
          ),
      );
      return (reply.Messages ?? []).map((message) => {
        const groupId = fifo ? message.Attributes?.MessageGroupId : undefined;
        return {
          id: message.MessageId ?? "",
          body: message.Body ?? "",
          receiptHandle: message.ReceiptHandle ?? "",
          ...(groupId === undefined ? {} : { groupId }),
          ...(keepSystem ? { systemAttributes: message.Attributes ?? {} } : {}),
          ...(keepMessage
            ? { messageAttributes: messageAttributesOf(message) }
            : {}),
        };
      });
    },

    async deleteBatch(messages) {
      if (messages.length === 0) return [];
      const reply = await bounded(
        callTimeoutMs,
        undefined,
        (abortSignal) =>
          client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: entries(messages),
            }),
            { abortSignal },
          ),
      );
      return failedEntries(messages, reply.Failed);
    },

    async setVisibility(message, seconds) {
      await bounded(
        callTimeoutMs,
        undefined,
        (abortSignal) =>
          client.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queueUrl,
              ReceiptHandle: message.receiptHandle,
              VisibilityTimeout: seconds,
            }),
            { abortSignal },
          ),
      );
    },

    async extendVisibility(messages, seconds) {
      if (messages.length === 0) return [];
      const reply = await bounded(
        callTimeoutMs,
        undefined,
        (abortSignal) =>
          client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: entries(messages).map((entry) => ({
                ...entry,
                VisibilityTimeout: seconds,
              })),
            }),
            { abortSignal },
          ),
      );
      return failedEntries(messages, reply.Failed);
    },
  };
}

/** A received message's attributes, as {@linkcode MessageAttribute}s. */
function messageAttributesOf(
  message: Message,
): Record<string, MessageAttribute> {
  const attributes: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    attributes[name] = {
      dataType: value.DataType ?? "",
      ...(value.StringValue === undefined
        ? {}
        : { stringValue: value.StringValue }),
    };
  }
  return attributes;
}

/**
 * The refused entries of a batch reply, by their index ids (see `entries`); a reason
 * goes in the middle of a log line, so without the queue's final period.
 */
function failedEntries(
  messages: readonly QueueMessage[],
  failed: readonly { Id?: string; Code?: string; Message?: string }[] = [],
): FailedEntry[] {
  return failed.map((failure) => ({
    message: messages[Number(failure.Id)]!,
    reason: [failure.Code, failure.Message?.replace(/\.+$/, "")]
      .filter(Boolean).join(": "),
    code: failure.Code,
  }));
}
