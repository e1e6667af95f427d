// The answers Fastify and Node give before a request reaches the routes and hooks: a path the
// router cannot read (bad percent-encoding, an over-long parameter) and a request Node cannot
// parse (malformed, oversized headers, too slow). They too carry the common headers and a
// problem body, and never echo what was sent.
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { FieldError } from '../../errors/inputError.ts'
import type { ChainRegistry } from '../../intents/createChainRegistry.ts'
import { Status } from '../../status/statusCodes.ts'
import type { GatewayContext } from '../gatewayContext.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { describedChain } from '../requestChain.ts'
import { toCommonHeaders } from '../toCommonHeaders.ts'

type Answer = { httpStatus: number; status: number; title: string; errors?: FieldError[] }

export function createFrameworkErrorHandlers({
  registry,
  maxParamLength,
}: {
  registry: ChainRegistry
  maxParamLength: number
}) {
  /** The chain the answer names: the request's (X-Chain-Id), or the default one when there is no request to read. */
  const contextFor = (request: FastifyRequest | undefined): GatewayContext => ({
    ...(request ? describedChain(registry, request) : registry.describe(undefined)),
    intentHash: undefined,
    status: undefined,
  })

  function routingAnswer(error: FastifyError): Answer {
    if (error.code === 'FST_ERR_BAD_URL')
      return {
        httpStatus: 400,
        status: Status.INVALID_FORMAT,
        title: 'The path is not valid',
        errors: [{ field: 'path', message: 'is not valid percent-encoding' }],
      }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return {
        httpStatus: 414,
        status: Status.INVALID_FORMAT,
        title: 'The path is too long',
        errors: [{ field: 'path', message: `has a segment longer than ${maxParamLength} characters` }],
      }
    }
    return { httpStatus: 500, status: Status.GATEWAY_FAILURE, title: 'Internal gateway error' }
  }

  function clientAnswer(code: string | undefined): Answer {
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
      return { httpStatus: 408, status: Status.INVALID_FORMAT, title: 'The request did not arrive in time' }
    if (code === 'HPE_HEADER_OVERFLOW')
      return {
        httpStatus: 431,
        status: Status.INVALID_FORMAT,
        title: 'The request headers are too large',
        errors: [{ field: 'headers', message: 'are over the size limit' }],
      }
    return {
      httpStatus: 400,
      status: Status.INVALID_FORMAT,
      title: 'The request is not valid HTTP',
      errors: [{ field: 'request', message: 'could not be parsed as HTTP/1.1' }],
    }
  }

  return {
    /** Fastify's `frameworkErrors`: the reply goes out without the app's hooks, so it is complete here. */
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const answer = routingAnswer(error)
      const context = { ...contextFor(request), status: answer.status }
      request.gateway = context
      if (answer.httpStatus >= 500) request.log.error({ err: error }, 'unexpected routing error')
      request.log.info({ method: request.method, statusCode: answer.httpStatus, code: error.code }, 'request')
      const problem = toProblemDetails({
        httpStatus: answer.httpStatus,
        status: answer.status,
        title: answer.title,
        detail: undefined,
        context,
        ...(answer.errors ? { errors: answer.errors } : {}),
      })
      void reply
        .code(answer.httpStatus)
        .headers({
          'x-request-id': request.id,
          ...toCommonHeaders({ context, httpStatus: answer.httpStatus, rawBody: undefined }),
          'x-content-type-options': 'nosniff',
        })
        .type('application/problem+json; charset=utf-8')
        .send(problem)
    },
    /** Node's `clientError`: no request exists, so the answer is written to the socket, which is then closed. */
    clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return
      const answer = clientAnswer(error.code)
      const context = { ...contextFor(undefined), status: answer.status }
      if (socket.writable) {
        const body = JSON.stringify(
          toProblemDetails({
            httpStatus: answer.httpStatus,
            status: answer.status,
            title: answer.title,
            detail: undefined,
            context,
            ...(answer.errors ? { errors: answer.errors } : {}),
          }),
        )
        const headers = {
          // No request was parsed, so no id of the caller's can be trusted: a fresh one.
          'x-request-id': randomUUID(),
          ...toCommonHeaders({ context, httpStatus: answer.httpStatus, rawBody: undefined }),
          'content-type': 'application/problem+json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          'x-content-type-options': 'nosniff',
          connection: 'close',
        }
        const head = Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')
        socket.write(`HTTP/1.1 ${answer.httpStatus} ${httpReason[answer.httpStatus]}\r\n${head}\r\n${body}`)
      }
      socket.destroy(error)
    },
  }
}

const httpReason: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}
