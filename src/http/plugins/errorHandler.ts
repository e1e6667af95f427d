// Every error becomes a problem-details response with the right status and ERC-1066 code:
// input errors name the fields, transport errors keep their HTTP status, faults never leak.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { GatewayError } from '../../errors/gatewayError.ts'
import { type FieldError, InputError } from '../../errors/inputError.ts'
import { accountMetaFields, intentFields, intentHashParamsSchema, intentSchema } from '../../intents/intentSchema.ts'
import { getStatusCode, Status } from '../../status/statusCodes.ts'
import { toProblemDetails } from '../problemDetails.ts'

/** Descriptions of every field a route schema checks, by where it is: error messages quote them. */
const describedFields: Record<string, Record<string, { description?: string; pattern?: string }>> = {
  body: intentSchema.properties,
  params: intentHashParamsSchema.properties,
}

type AjvError = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }

const transportErrors: Record<string, { httpStatus: number; title: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { httpStatus: 415, title: 'Unsupported content type: send application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { httpStatus: 413, title: 'The request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { httpStatus: 400, title: 'The request body is empty' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { httpStatus: 400, title: 'Content-Length does not match the body' },
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const input = toInputError(error, request)
    if (input)
      return sendProblem(
        request,
        reply,
        input.httpStatus ?? getStatusCode(input.status).httpStatus,
        input.status,
        input.shortMessage,
        input.details,
        input.errors,
        input.headers,
      )

    if (error instanceof GatewayError) {
      const entry = getStatusCode(error.status)
      request.log.warn({ err: error, code: error.code }, error.shortMessage)
      return sendProblem(
        request,
        reply,
        entry.httpStatus,
        error.status,
        error.shortMessage,
        error.details,
        undefined,
        error.headers,
      )
    }

    // A bug: log it whole, answer without any of it.
    request.log.error({ err: error }, 'unexpected error')
    return sendProblem(
      request,
      reply,
      500,
      Status.GATEWAY_FAILURE,
      'Internal gateway error',
      'the gateway failed unexpectedly; the incident was logged',
      undefined,
      {},
    )
  })

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      404,
      Status.UNSUPPORTED_ACTION,
      'No such route',
      `${request.method} ${request.url.split('?')[0]} is not a route of this gateway`,
      undefined,
      {},
    ),
  )
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  httpStatus: number,
  status: number,
  title: string,
  detail: string | undefined,
  errors: FieldError[] | undefined,
  headers: Record<string, string>,
) {
  request.gateway.status = status
  const problem = toProblemDetails({
    httpStatus,
    status,
    title,
    detail,
    context: request.gateway,
    ...(errors ? { errors } : {}),
  })
  return reply.code(httpStatus).headers(headers).type('application/problem+json').send(problem)
}

function toInputError(error: FastifyError, request: FastifyRequest): InputError | undefined {
  if (error instanceof InputError) return error
  if (error.validation) {
    // An `if` names no field: the `then` it failed (the intent's target/data/value unless `calls`) reports its own errors.
    const errors = (error.validation as AjvError[])
      .filter((e) => e.keyword !== 'if')
      .map((e) => toFieldError(e, error.validationContext))
    const where = error.validationContext === 'params' ? 'path' : (error.validationContext ?? 'request')
    return new InputError(`The ${where === 'body' ? 'intent' : where} is not valid`, { errors })
  }
  const transport = error.code ? transportErrors[error.code] : undefined
  if (transport) {
    const errors =
      transport.httpStatus === 415
        ? [
            {
              field: 'Content-Type',
              message: `${headerSafe(request.headers['content-type']) || 'a missing Content-Type'} is not supported; send application/json`,
            },
          ]
        : [{ field: 'body', message: error.message }]
    return new InputError(transport.title, { httpStatus: transport.httpStatus, errors })
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new InputError(error.message, { httpStatus: error.statusCode })
  }
  return undefined
}

function toFieldError(e: AjvError, context: string | undefined): FieldError {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.')
  if (e.keyword === 'required') return { field: String(e.params.missingProperty), message: 'is required' }
  if (e.keyword === 'additionalProperties') {
    const name = String(e.params.additionalProperty)
    // accounts/0 → accounts[0].name: the one nested object of the intent is an account meta.
    if (/^accounts\.\d+$/.test(path))
      return {
        field: `${path.replace(/\.(\d+)$/, '[$1]')}.${name}`,
        message: `is not a known field (an account meta has: ${accountMetaFields.join(', ')})`,
      }
    return { field: name, message: `is not a known field (the fields are: ${intentFields.join(', ')})` }
  }
  if (!path)
    return {
      field: context ?? 'body',
      message: e.keyword === 'type' ? `must be a JSON ${e.params.type}` : (e.message ?? 'is not valid'),
    }
  const property = describedFields[context ?? '']?.[path]
  if (property) {
    if (e.keyword === 'type') {
      const hint = property.pattern === '^[0-9]+$' ? ' (integers are written as decimal strings, e.g. "1000")' : ''
      return { field: path, message: `must be a ${e.params.type}${hint}` }
    }
    if (e.keyword === 'enum')
      return { field: path, message: `must be one of ${(e.params.allowedValues as string[]).join(', ')}` }
    return { field: path, message: `must be ${property.description}` }
  }
  return { field: path, message: e.message ?? 'is not valid' }
}

function headerSafe(value: string | undefined): string {
  return (value ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 100)
}
